import { crc32, deflateSync } from 'node:zlib';
import { concatBytes } from '../../shared/pictures/container-bytes.js';
import type { ImageType } from '../../shared/pictures/image-type.js';
import { cleanPicture } from '../../shared/pictures/picture-metadata.js';

/**
 * Small well-formed images of the four accepted types, built from their blocks so that tests can
 * add metadata blocks and know exactly which bytes a cleaned picture keeps.
 */
type Bytes = readonly number[] | Uint8Array;

export const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));
export const concat = concatBytes;

/** A picture as cleaning answers it, for a test that expects no problem. */
export const cleanedPicture = (bytes: Uint8Array, type: ImageType) => {
  const result = cleanPicture(bytes, type);
  if ('problem' in result) throw new Error(`unexpected problem: ${result.problem}`);
  return result;
};
const be16 = (value: number) => [(value >> 8) & 0xff, value & 0xff];
const be32 = (value: number) => [...be16(Math.floor(value / 0x10000)), ...be16(value & 0xffff)];
const le16 = (value: number) => [value & 0xff, (value >> 8) & 0xff];
const le24 = (value: number) => [...le16(value & 0xffff), (value >> 16) & 0xff];
const le32 = (value: number) => [...le16(value & 0xffff), ...le16(Math.floor(value / 0x10000))];

/** Whether `needle` occurs in `haystack`. */
export const contains = (haystack: Uint8Array, needle: Bytes) =>
  Buffer.from(haystack).indexOf(Buffer.from(needle)) !== -1;

// PNG: signature, then chunks of length, type, data and a CRC of type and data.
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
export const pngChunk = (type: string, data: Bytes = []) =>
  concat(be32(data.length), ascii(type), data, be32(crc32(concat(ascii(type), data))));
/** 8-bit RGBA. */
export const pngHeader = (width: number, height: number) =>
  pngChunk('IHDR', [...be32(width), ...be32(height), 8, 6, 0, 0, 0]);
/** One RGBA pixel (filter byte 0), compressed. */
export const pngData = pngChunk('IDAT', deflateSync(Uint8Array.from([0, 0x2a, 0x6a, 0xaa, 0xff])));
export const pngEnd = pngChunk('IEND');
export const png = (...chunks: Bytes[]) => concat(PNG_SIGNATURE, ...chunks);

// JPEG: SOI, segments (marker, big-endian length counting itself, payload), the scan's data, EOI.
export const jpegSegment = (marker: number, payload: Bytes) => [
  0xff,
  marker,
  ...be16(payload.length + 2),
  ...payload,
];
export const JPEG_START = [0xff, 0xd8];
export const JPEG_END = [0xff, 0xd9];
export const jfif = jpegSegment(0xe0, [...ascii('JFIF'), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
const quantization = jpegSegment(0xdb, [0x00, ...new Array<number>(64).fill(1)]);
/** Baseline, 8-bit, one component. */
export const jpegFrame = (width: number, height: number) =>
  jpegSegment(0xc0, [8, ...be16(height), ...be16(width), 1, 1, 0x11, 0]);
// One code ('0') each: DC category 0 and AC end of block, so the scan of one grey block is '00'.
const huffman = [
  ...jpegSegment(0xc4, [0x00, 1, ...new Array<number>(15).fill(0), 0x00]),
  ...jpegSegment(0xc4, [0x10, 1, ...new Array<number>(15).fill(0), 0x00]),
];
export const jpegScan = [...jpegSegment(0xda, [1, 1, 0x00, 0, 63, 0]), 0x3f];
/** The tables and scan of a 1 x 1 grey picture, after a frame header. */
export const jpegTablesAndScan = [...quantization, ...huffman, ...jpegScan];
export const jpeg = (...segments: Bytes[]) => concat(JPEG_START, ...segments, JPEG_END);

// GIF: header, logical screen, global colour table, blocks, trailer.
export const gifScreen = (width: number, height: number) => [
  ...ascii('GIF89a'),
  ...le16(width),
  ...le16(height),
  0x80, // a global colour table of 2 colours
  0,
  0,
  ...[0, 0, 0, 0xff, 0xff, 0xff],
];
export const gifGraphicControl = [0x21, 0xf9, 4, 0, 0, 0, 0, 0];
/** A 1 x 1 image: descriptor, LZW minimum code size 2, one data sub-block, terminator. */
export const gifImage = [0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0];
export const gifExtension = (label: number, ...subBlocks: Bytes[]) => [
  0x21,
  label,
  ...subBlocks.flatMap((block) => [block.length, ...block]),
  0,
];
export const gifLooping = gifExtension(0xff, ascii('NETSCAPE2.0'), [1, 0, 0]);
export const GIF_TRAILER = [0x3b];
export const gif = (...blocks: Bytes[]) => concat(gifScreen(1, 1), ...blocks, GIF_TRAILER);

// WebP: RIFF (little-endian size of what follows), WEBP, chunks padded to an even length.
export const webpChunk = (type: string, data: Bytes) => [
  ...ascii(type),
  ...le32(data.length),
  ...data,
  ...(data.length % 2 ? [0] : []),
];
export const webp = (...chunks: Bytes[]) => {
  const body = concat(ascii('WEBP'), ...chunks);
  return concat(ascii('RIFF'), le32(body.length), body);
};
/** The extended header: flags (0x10 alpha, 0x08 EXIF, 0x04 XMP), canvas width and height. */
export const webpExtended = (flags: number, width: number, height: number) =>
  webpChunk('VP8X', [flags, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)]);
/** A lossless 1 x 1 picture. */
export const webpLossless = webpChunk(
  'VP8L',
  [0x2f, 0, 0, 0, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07],
);
/** A lossy 1 x 1 picture with an alpha channel (used after an extended header). */
export const webpAlphaAndLossy = [
  ...webpChunk('ALPH', [0x11, 0x07, 0x10, 0x11, 0xfd, 0x0f, 0x44, 0x44, 0xff, 0x03, 0x00, 0x00]),
  ...webpChunk(
    'VP8 ',
    [
      0x14, 0x01, 0x00, 0x9d, 0x01, 0x2a, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0xfe, 0x00, 0x00, 0x0d, 0xc0,
      0x00, 0xfe, 0xe6, 0xb5, 0x00, 0x00, 0x00,
    ],
  ),
];

// The smallest well-formed pictures of the four types.
export const PNG = png(pngHeader(1, 1), pngData, pngEnd);
export const JPEG = jpeg(jfif, jpegFrame(1, 1), jpegTablesAndScan);
export const GIF = gif(gifGraphicControl, gifImage);
export const WEBP = webp(webpLossless);

/**
 * Exif as a phone writes it: a big-endian TIFF header whose IFD0 points to a GPS IFD holding a
 * latitude reference ('N'). JPEG carries it in APP1 after "Exif\0\0", PNG in eXIf, WebP in EXIF.
 */
// biome-ignore format: one TIFF field a line
export const exifWithGps = [
  ...ascii('MM'), 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08, // TIFF header, IFD0 at 8
  0x00, 0x01, // one entry
  0x88, 0x25, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1a, // GPSInfo -> 26
  0x00, 0x00, 0x00, 0x00, // no next IFD
  0x00, 0x01, // GPS IFD: one entry
  0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, ...ascii('N'), 0x00, 0x00, 0x00, // GPSLatitudeRef
  0x00, 0x00, 0x00, 0x00,
];
export const EXIF_HEADER = [...ascii('Exif'), 0, 0];
export const jpegExif = jpegSegment(0xe1, [...EXIF_HEADER, ...exifWithGps]);
