import { describe, expect, it } from 'vitest';
import type { ImageType } from '../../shared/pictures/image-type.js';
import {
  ascii,
  cleanedPicture,
  concat,
  contains,
  EXIF_HEADER,
  exifWithGps,
  jfif,
  jpeg,
  jpegFrame,
  jpegSegment,
  jpegTablesAndScan,
  png,
  pngChunk,
  pngData,
  pngEnd,
  pngHeader,
  webp,
  webpChunk,
  webpExtended,
  webpLossless,
} from '../support/picture-bytes.js';

/**
 * Browsers turn a picture by its Exif Orientation (most portrait phone photos are stored sideways),
 * so cleaning writes that one tag back, alone, where the Exif was dropped.
 */
const cleaned = (bytes: Uint8Array, type: ImageType) => cleanedPicture(bytes, type).bytes;

/** Little-endian Exif as a phone writes it: Orientation, and a GPS IFD with a latitude reference. */
const gpsEntry = [0x01, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, ...ascii('N'), 0x00, 0x00, 0x00];
// biome-ignore format: one TIFF field a line
const phoneExif = (orientation: number) => [
  ...ascii('II'), 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00, // TIFF header, IFD0 at 8
  0x02, 0x00, // two entries
  0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, orientation, 0x00, 0x00, 0x00, // Orientation
  0x25, 0x88, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x26, 0x00, 0x00, 0x00, // GPSInfo -> 38
  0x00, 0x00, 0x00, 0x00, // no next IFD
  0x01, 0x00, ...gpsEntry, // GPS IFD: GPSLatitudeRef
  0x00, 0x00, 0x00, 0x00,
];
/** What is written back: big-endian, IFD0 holding Orientation = 6 alone, no other IFD. */
// biome-ignore format: one TIFF field a line
const orientation6 = [
  ...ascii('MM'), 0x00, 0x2a, 0x00, 0x00, 0x00, 0x08,
  0x00, 0x01,
  0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00,
  0x00, 0x00, 0x00, 0x00,
];
const xmp = jpegSegment(0xe1, ascii('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>'));

describe('JPEG', () => {
  const photo = (exif: number[]) =>
    jpeg(jfif, xmp, jpegSegment(0xe1, [...EXIF_HEADER, ...exif]), jpegFrame(2, 1), jpegTablesAndScan);

  it('keeps orientation 6 alone, in an APP1 Exif segment right after JFIF', () => {
    const result = cleaned(photo(phoneExif(6)), 'image/jpeg');
    expect(result).toEqual(
      jpeg(jfif, jpegSegment(0xe1, [...EXIF_HEADER, ...orientation6]), jpegFrame(2, 1), jpegTablesAndScan),
    );
    expect(contains(result, gpsEntry)).toBe(false);
    expect(cleaned(result, 'image/jpeg')).toEqual(result);
  });

  it('keeps it right after the start marker without JFIF', () => {
    const bare = jpeg(
      jpegSegment(0xe1, [...EXIF_HEADER, ...phoneExif(6)]),
      jpegFrame(2, 1),
      jpegTablesAndScan,
    );
    expect(cleaned(bare, 'image/jpeg')).toEqual(
      jpeg(jpegSegment(0xe1, [...EXIF_HEADER, ...orientation6]), jpegFrame(2, 1), jpegTablesAndScan),
    );
  });

  it.each([
    ['orientation 1', photo(phoneExif(1))],
    ['no orientation', photo(exifWithGps)],
  ])('writes no Exif at all for %s', (_case, bytes) => {
    expect(cleaned(bytes, 'image/jpeg')).toEqual(jpeg(jfif, jpegFrame(2, 1), jpegTablesAndScan));
  });
});

describe('PNG', () => {
  const picture = (exif: number[]) =>
    png(pngHeader(2, 1), pngChunk('tEXt', ascii('a\0b')), pngData, pngChunk('eXIf', exif), pngEnd);

  it('keeps orientation 6 alone, in an eXIf chunk (its CRC right) before the image data', () => {
    const result = cleaned(picture(phoneExif(6)), 'image/png');
    expect(result).toEqual(png(pngHeader(2, 1), pngChunk('eXIf', orientation6), pngData, pngEnd));
    expect(contains(result, gpsEntry)).toBe(false);
  });

  it.each([
    ['orientation 1', picture(phoneExif(1))],
    ['no orientation', picture(exifWithGps)],
  ])('writes no Exif at all for %s', (_case, bytes) => {
    expect(cleaned(bytes, 'image/png')).toEqual(png(pngHeader(2, 1), pngData, pngEnd));
  });
});

describe('WebP', () => {
  const picture = (exif: number[]) =>
    webp(
      webpExtended(0x08 | 0x04, 1, 1),
      webpLossless,
      webpChunk('EXIF', exif),
      webpChunk('XMP ', ascii('<x/>')),
    );

  it('keeps orientation 6 alone, in an EXIF chunk, with the EXIF flag (XMP flag cleared)', () => {
    const result = cleaned(picture(phoneExif(6)), 'image/webp');
    expect(result).toEqual(webp(webpExtended(0x08, 1, 1), webpLossless, webpChunk('EXIF', orientation6)));
    expect(contains(result, gpsEntry)).toBe(false);
  });

  it('reads an EXIF chunk that starts with "Exif\\0\\0" too', () => {
    const result = cleaned(picture([...EXIF_HEADER, ...phoneExif(6)]), 'image/webp');
    expect(result).toEqual(webp(webpExtended(0x08, 1, 1), webpLossless, webpChunk('EXIF', orientation6)));
  });

  it.each([
    ['orientation 1', picture(phoneExif(1))],
    ['no orientation', picture(exifWithGps)],
  ])('writes no Exif at all for %s', (_case, bytes) => {
    expect(cleaned(bytes, 'image/webp')).toEqual(webp(webpExtended(0, 1, 1), webpLossless));
  });
});

it('an Orientation entry cut short or out of range writes nothing', () => {
  const cut = phoneExif(6).slice(0, 20);
  const outOfRange = phoneExif(9);
  for (const exif of [cut, outOfRange])
    expect(
      cleaned(concat(png(pngHeader(1, 1), pngChunk('eXIf', exif), pngData, pngEnd)), 'image/png'),
    ).toEqual(png(pngHeader(1, 1), pngData, pngEnd));
});
