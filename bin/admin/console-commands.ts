import { consoleAddress, enableConsole } from '../../shared/console/console-application.js';
import { identifier } from '../../shared/schemas/common.js';
import { type Command, lines, OPERATOR, requireOrganization } from './command.js';
import { required, validated } from './options.js';

/** The admin console of an organization (docs/console.md). */
export const CONSOLE_COMMANDS: Record<string, Command> = {
  'console enable': {
    usage: 'console enable --org ORG',
    options: ['org'],
    notes: [
      "Registers the organization's console application (console-ORG: public, PKCE, no role) so that",
      'its people sign in to the console at <API origin>/console/ORG. Run again: it puts back its name and',
      'addresses if they were changed (before the service managed it, or the API origin moved).',
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      await requireOrganization(orgId);
      const { id, created, restored } = await enableConsole(orgId, OPERATOR);
      const address = consoleAddress(orgId);
      return {
        json: { organizationId: orgId, clientId: id, created, restored, address },
        summary: lines(
          created
            ? `Enabled the console for organization ${orgId}`
            : `The console of ${orgId} was enabled already`,
          restored.length > 0 && `  put back as the service registers it: ${restored.join(', ')}`,
          `  open ${address}`,
        ),
      };
    },
  },
};
