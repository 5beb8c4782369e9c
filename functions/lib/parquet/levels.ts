// Repetition and definition levels, as a V1 data page carries them.
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';

/** V1 definition levels of a flat OPTIONAL column: bit width 1, RLE/bit-packed, length-prefixed. */
export function definitionLevels(defs: Uint8Array, rows: number, allPresent: boolean): Uint8Array {
  const levels = new ByteWriter(rows / 8 + 16);
  levels.appendUint32(0);
  if (allPresent) {
    levels.appendVarInt(rows << 1);
    levels.appendUint8(1);
  } else {
    writeRleBitPackedHybrid(levels, defs.subarray(0, rows), 1);
  }
  levels.view.setUint32(0, levels.offset - 4, true);
  return levels.getBytes();
}

/** V1 repetition or definition levels of `bitWidth` bits: RLE/bit-packed, length-prefixed. */
export function levelBytes(levels: Uint8Array, bitWidth: number): Uint8Array {
  const out = new ByteWriter(levels.length / 4 + 16);
  out.appendUint32(0);
  writeRleBitPackedHybrid(out, levels, bitWidth);
  out.view.setUint32(0, out.offset - 4, true);
  return out.getBytes();
}
