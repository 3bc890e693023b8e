import { NotFound } from '../../shared/domain/errors.js';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';
import { getOrganization } from '../../shared/store/organization-repository.js';
import { commaList, type Options, optional } from './options.js';
import { UsageError } from './target.js';

/** `createdBy` of what the CLI writes. */
export const OPERATOR = 'idp-admin';

export interface CommandResult {
  /** Printed with `--json`. */
  json: unknown;
  /** Printed with `--json` instead of `json`, one compact line each (a listing that may be long). */
  jsonLines?: readonly unknown[];
  /** Printed otherwise: a few readable lines. */
  summary: string;
}

export interface Command {
  usage: string;
  /** The options it takes besides the global ones. */
  options: readonly string[];
  /** Printed below the usage by `--help`: what an operator should know before running it. */
  notes?: string;
  /**
   * One word the command takes after its own (an id), named so in its usage; given to `run`.
   * Commands without one take options only.
   */
  argument?: string;
  run(options: Options, io: { readStdin(): Promise<string> }, argument?: string): Promise<CommandResult>;
}

/** `--permissions A,B` or `--all-permissions`, never both. */
export const permissionsOption = (options: Options): string[] => {
  if (options['all-permissions'] && options.permissions !== undefined) {
    throw new UsageError('give --permissions or --all-permissions, not both');
  }
  return options['all-permissions'] ? [...ALL_PERMISSION_IDS] : commaList(optional(options, 'permissions'));
};

/** A summary of the lines that are there. */
export const lines = (...entries: (string | false | undefined)[]) => entries.filter(Boolean).join('\n');

/** The organization, or "Organization <id> not found" (exit code 1). */
export const requireOrganization = async (orgId: string) => {
  const organization = await getOrganization(orgId);
  if (!organization) throw new NotFound('Organization', orgId);
  return organization;
};
