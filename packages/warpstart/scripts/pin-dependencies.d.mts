export declare function lockText(folder: string): string;
