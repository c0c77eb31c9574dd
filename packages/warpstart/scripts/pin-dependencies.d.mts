export declare const DEPENDENCIES: string;
export declare function lockText(folder?: string): string;
