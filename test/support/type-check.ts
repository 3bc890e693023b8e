import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { PROJECT_TEMP } from './temp-dir.js';

/**
 * Writes `files` (name -> source) into a folder of the project's `.tmp/` and type-checks the
 * first one strictly, as a consumer's program would be; answers the compiler's complaints.
 */
export const typeCheckProgram = (folder: string, files: Record<string, string>, types: string[] = []) => {
  const directory = join(PROJECT_TEMP, `${folder}-${process.pid}`);
  mkdirSync(directory, { recursive: true });
  for (const [name, source] of Object.entries(files)) writeFileSync(join(directory, name), source);
  const program = ts.createProgram([join(directory, Object.keys(files)[0] as string)], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
};
