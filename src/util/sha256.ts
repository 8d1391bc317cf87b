/**
 * The bare hex sha256 of bytes or text (UTF-8). A catalog skill's `hash` is this of its file's
 * bytes, and skillhub.lock records it as `sha256:<hex>` (catalog/digests.ts). Pure.
 */
export function sha256Hex(data: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
