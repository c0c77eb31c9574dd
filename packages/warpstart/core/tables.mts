// Tables as every report of the project prints them: Markdown (report.md), Markdown padded into
// columns (readable raw, on a terminal too), or plain columns for the terminal. The first column
// is left-aligned and the rest right-aligned unless `align` says otherwise.

export type TableFormat = "markdown" | "aligned-markdown" | "text";
export type Align = "left" | "right";

/** Markdown renders raw HTML, so a name like "<slim>" would vanish; entities show it as typed. */
export function markdownText(text: string): string {
  return text.replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function renderTable(header: string[], rows: string[][], format: TableFormat, align?: Align[]): string {
  const alignOf = (i: number): Align => align?.[i] ?? (i === 0 ? "left" : "right");
  // In Markdown a "|" inside a cell would split it, newlines would end the table, and "<" may start HTML.
  const cell =
    format === "text"
      ? (text: string) => text
      : (text: string) =>
          markdownText(text)
            .replace(/\|/g, "\\|")
            .replace(/\s*\n\s*/g, " ");
  const cells = [header, ...rows].map((row) => row.map(cell));
  if (format === "markdown") {
    const line = (row: string[]) => `| ${row.join(" | ")} |`;
    return [line(cells[0]!), `|${header.map((_, i) => (alignOf(i) === "right" ? "---:" : ":---")).join("|")}|`, ...cells.slice(1).map(line)].join("\n");
  }
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const pad = (row: string[]) => row.map((text, i) => (alignOf(i) === "right" ? text.padStart(widths[i]!) : text.padEnd(widths[i]!)));
  if (format === "aligned-markdown") {
    const line = (row: string[]) => `| ${pad(row).join(" | ")} |`;
    const rule = `|${widths.map((width, i) => (alignOf(i) === "right" ? `${"-".repeat(width + 1)}:` : `:${"-".repeat(width + 1)}`)).join("|")}|`;
    return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join("\n");
  }
  const line = (row: string[]) => pad(row).join("  ").trimEnd();
  return [line(cells[0]!), widths.map((width) => "-".repeat(width)).join("  "), ...cells.slice(1).map(line)].join("\n");
}
