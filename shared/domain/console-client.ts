/**
 * The console signs people in as a public application of their organization with a fixed id, so
 * that the page finds it from the organization in its address (shared/console/console-application.ts
 * registers it). The service manages it: the API and the CLI neither change nor delete it, since
 * either could lock everyone out of the console.
 */
export const consoleClientId = (organizationId: string): string => `console-${organizationId}`;

/** Why the console's own application cannot be changed or deleted by a caller. */
export const CONSOLE_CLIENT_MANAGED =
  "The console's own application is managed by the service (npm run admin -- console enable registers it): it is neither changed nor deleted through the API or the CLI";
