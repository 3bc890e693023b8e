import { readFile } from 'node:fs/promises';
import type * as z from '../../shared/zod.js';
import { UsageError } from './target.js';

export type Options = Record<string, string | boolean | undefined>;

/** The value of `--name`, which the command cannot do without. */
export const required = (options: Options, name: string): string => {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
};

export const optional = (options: Options, name: string): string | undefined => {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * `--name` (true) or `--no-name` (false), both flags of the CLI (`FLAGS`); undefined when neither
 * is given (unchanged).
 */
export const switchOption = (options: Options, name: string): boolean | undefined => {
  if (options[name] && options[`no-${name}`])
    throw new UsageError(`give --${name} or --no-${name}, not both`);
  return options[name] ? true : options[`no-${name}`] ? false : undefined;
};

/** The JSON in the file `--name` names; undefined when the option is not given. */
export const jsonFileOption = async (options: Options, name: string): Promise<unknown> => {
  const file = optional(options, name);
  if (file === undefined) return undefined;
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--${name}: cannot read ${file} (${error.code ?? error.message})`);
  });
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--${name}: ${file} is not JSON`);
  }
};

/** `A,B, C` -> ['A', 'B', 'C'] (empty entries dropped). */
export const commaList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** Parses an option with the service's own schema, so the CLI accepts what the API accepts. */
export const validated = <S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  option: string,
): z.output<S> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const position = issue && issue.path.length > 0 ? ` (${issue.path.join('.')})` : '';
  throw new UsageError(`--${option}${position}: ${issue?.message ?? 'invalid'}`);
};

/** A whole number from `min` to `max`, written in digits. */
export const integer = (
  options: Options,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined => {
  const value = optional(options, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
};
