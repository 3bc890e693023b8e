/** What a format's walk gives cleanPicture (shared/pictures/picture-metadata.ts). */
export type PictureProblem = { problem: string };
export type Range = [start: number, end: number];
/**
 * The byte ranges to copy (in order), the dimensions, bytes to write before the first kept byte
 * at or after an offset of the original, and any change the copy needs after.
 */
export type Walk = {
  keep: Range[];
  width: number;
  height: number;
  insert?: { at: number; bytes: Uint8Array };
  finish?: (cleaned: Uint8Array) => void;
};

export const problem = (text: string): PictureProblem => ({ problem: text });

export const u16be = (bytes: Uint8Array, at: number) => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
export const u16le = (bytes: Uint8Array, at: number) => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8);
export const u24le = (bytes: Uint8Array, at: number) => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16);
export const u32be = (bytes: Uint8Array, at: number) => u16be(bytes, at) * 0x10000 + u16be(bytes, at + 2);
export const u32le = (bytes: Uint8Array, at: number) => u16le(bytes, at) + u16le(bytes, at + 2) * 0x10000;
export const text = (bytes: Uint8Array, at: number, length: number) =>
  String.fromCharCode(...bytes.subarray(at, at + length));
export const concatBytes = (...parts: (readonly number[] | Uint8Array)[]) => {
  const bytes = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
};

/** Collects the ranges to copy: everything from the start but the dropped ranges. */
export const rangesBuilder = (from: number) => {
  const keep: Range[] = [];
  let copyFrom = from;
  return {
    keep,
    drop: (start: number, end: number) => {
      if (start > copyFrom) keep.push([copyFrom, start]);
      copyFrom = end;
    },
    endAt: (end: number) => {
      if (end > copyFrom) keep.push([copyFrom, end]);
    },
  };
};
