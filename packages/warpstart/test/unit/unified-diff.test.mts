// The diff `npm run doctor -- --fix` prints of the template it edits (adoption/unified-diff.mts).
import { unifiedDiff } from "../../adoption/unified-diff.mts";

const lines = (count: number) => `${Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n")}\n`;
const hunkHeaders = (before: string, after: string) =>
  unifiedDiff(before, after, "t")
    .split("\n")
    .filter((line) => line.startsWith("@@"));

describe("unifiedDiff", () => {
  it("empty when nothing changed", () => {
    expect(unifiedDiff(lines(10), lines(10), "template.yaml")).toBe("");
  });

  it("--- and +++ with the label only, then @@ hunks with 3 lines of context", () => {
    const before = lines(10);
    expect(unifiedDiff(before, before.replace("line 5\n", "line five\n"), "template.yaml")).toBe(
      [
        "--- template.yaml",
        "+++ template.yaml",
        "@@ -2,7 +2,7 @@",
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+line five",
        " line 6",
        " line 7",
        " line 8",
        "",
      ].join("\n"),
    );
  });

  it("changes more than 6 lines apart in hunks of their own, closer ones in one (as GNU diff -u)", () => {
    const before = lines(30);
    const removed = before.replace("line 3\n", "");
    expect(hunkHeaders(before, removed.replace("line 20\n", "line 20\nnew\n"))).toEqual(["@@ -1,6 +1,5 @@", "@@ -18,6 +17,7 @@"]);
    // 6 unchanged lines between two changes: their contexts meet. 7: they do not.
    expect(hunkHeaders(before, removed.replace("line 9\n", "line 9\nnew\n"))).toEqual(["@@ -1,12 +1,12 @@"]);
    expect(hunkHeaders(before, removed.replace("line 10\n", "line 10\nnew\n"))).toEqual(["@@ -1,6 +1,5 @@", "@@ -8,6 +7,7 @@"]);
  });

  it("a last line without a line break is marked, and differs from the same line with one", () => {
    expect(unifiedDiff("a\nb", "a\nb\n", "t")).toBe("--- t\n+++ t\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  });

  it("an empty side starts at line 0", () => {
    expect(unifiedDiff("", "a\n", "t")).toBe("--- t\n+++ t\n@@ -0,0 +1,1 @@\n+a\n");
    expect(unifiedDiff("a\nb\n", "", "t")).toBe("--- t\n+++ t\n@@ -1,2 +0,0 @@\n-a\n-b\n");
  });
});
