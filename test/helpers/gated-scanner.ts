import { Scanner, type ScanOptions } from "../../src/catalog/scanner.ts";
import type { Source } from "../../src/sources/source-list.ts";

/** A scanner whose scans wait until the test opens the gate: "before the scan ends", without timing. */
export class GatedScanner extends Scanner {
  private open!: () => void;
  readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  scans = 0;
  /** Whether release() was called: a handler that records it shows what came before and after. */
  released = false;
  release(): void {
    this.released = true;
    this.open();
  }
  override async scanAsync(sources: readonly Source[], options: ScanOptions) {
    this.scans++;
    await this.gate;
    return super.scanAsync(sources, options);
  }
}
