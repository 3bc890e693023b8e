import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const seedSystemData = vi.hoisted(() => vi.fn(async () => {}));
vi.mock('../../shared/store/catalogue-repository.js', () => ({ seedSystemData }));

const { handler } = await import('../../functions/seed.js');

const eventOf = (RequestType: 'Create' | 'Update' | 'Delete') =>
  ({
    RequestType,
    PhysicalResourceId: RequestType === 'Create' ? undefined : 'previous-id',
    ResourceProperties: { ServiceToken: 'arn', systemDataHash: 'abc' },
  }) as unknown as CloudFormationCustomResourceEvent;

describe('system-data custom resource handler', () => {
  beforeEach(() => seedSystemData.mockClear());

  it.each(['Create', 'Update'] as const)('seeds on %s under one stable physical id', async (type) => {
    await expect(handler(eventOf(type))).resolves.toEqual({ PhysicalResourceId: 'idp-system-data' });
    expect(seedSystemData).toHaveBeenCalledTimes(1);
  });

  it('leaves the data alone on Delete and answers the id it was asked to delete', async () => {
    await expect(handler(eventOf('Delete'))).resolves.toEqual({ PhysicalResourceId: 'previous-id' });
    expect(seedSystemData).not.toHaveBeenCalled();
  });

  it('fails the deployment when seeding fails', async () => {
    seedSystemData.mockRejectedValueOnce(new Error('throttled'));
    await expect(handler(eventOf('Update'))).rejects.toThrow('throttled');
  });
});
