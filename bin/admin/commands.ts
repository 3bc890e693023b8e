import { AUDIT_COMMANDS } from './audit-commands.js';
import type { Command } from './command.js';
import { CONSOLE_COMMANDS } from './console-commands.js';
import { SCIM_COMMANDS } from './scim-commands.js';
import { SSO_COMMANDS } from './sso-commands.js';
import { SYSTEM_COMMANDS } from './system-commands.js';
import { TENANT_COMMANDS } from './tenant-commands.js';
import { USER_COMMANDS } from './user-commands.js';

export type { Command, CommandResult } from './command.js';

/** Every command of the operator CLI, by its words (`org create`), in the order `help` lists them. */
export const COMMANDS: Record<string, Command> = {
  ...TENANT_COMMANDS,
  ...USER_COMMANDS,
  ...SSO_COMMANDS,
  ...SYSTEM_COMMANDS,
  ...AUDIT_COMMANDS,
  ...SCIM_COMMANDS,
  ...CONSOLE_COMMANDS,
};
