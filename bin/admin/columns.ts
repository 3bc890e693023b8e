/** Rows as aligned columns under a header, two spaces apart; the last column is not padded. */
export const columns = (header: readonly string[], rows: readonly (readonly string[])[]): string[] => {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  return [header, ...rows].map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] as number)))
      .join('  ')
      .trimEnd(),
  );
};
