/**
 * `shadowbook --version` (and `-V`) prints the code's identity: the package
 * version and the hash of src/, agents/ and the dependencies
 * (src/record/code-id.ts), the same text an input log names as the code
 * that recorded it; `--help` lists the flag.
 */
import { describe, expect, it } from "vitest";
import { codeIdentity } from "../../src/record/code-id.ts";
import { shadowbook } from "./shadowbook-process.ts";

describe("shadowbook --version", () => {
  it("prints the code identity an input log would name, for --version and -V", async () => {
    const [long, short, help] = await Promise.all([shadowbook(["--version"]), shadowbook(["-V"]), shadowbook(["--help"])]);
    const identity = codeIdentity();
    expect(identity).toMatch(/^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
    expect(long).toMatchObject({ status: 0, stdout: `${identity}\n` });
    expect(short).toMatchObject({ status: 0, stdout: `${identity}\n` });
    expect(help.stdout).toContain("-V, --version");
  }, 60_000);
});
