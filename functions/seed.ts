import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { seedSystemData } from '../shared/store/catalogue-repository.js';

/** One physical resource for the system data, so an update never asks to delete the old one. */
const PHYSICAL_RESOURCE_ID = 'idp-system-data';

/**
 * onEvent handler of the system-data custom resource (CDK Provider framework): seeds on Create
 * and Update. Delete leaves the data in place: it belongs to the retained table, not to the stack.
 */
export const handler = async (event: CloudFormationCustomResourceEvent) => {
  // The framework refuses a Delete that answers another physical id than the one it deletes.
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  await seedSystemData();
  return { PhysicalResourceId: PHYSICAL_RESOURCE_ID };
};
