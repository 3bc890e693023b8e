import { ttlSeconds } from './entity.js';
import { digestOf } from './opaque-values.js';
import { PasskeyChallengeEntity } from './passkey-entities.js';
import { put, takeItem, writeOne } from './writes.js';

/** WebAuthn L2 13.4.3 asks for challenges short-lived and used once; the issue fixes 5 minutes. */
export const CHALLENGE_LIFETIME_MILLIS = 5 * 60 * 1000;

/** Keeps a challenge just handed out, for the ceremony and browser `binding` names. */
export const saveChallenge = async (challenge: string, binding: string, now = Date.now()): Promise<void> => {
  const validUntil = now + CHALLENGE_LIFETIME_MILLIS;
  await writeOne(
    put(
      PasskeyChallengeEntity.item(
        { digest: digestOf(challenge) },
        { binding: digestOf(binding), validUntil, expiresAt: ttlSeconds(validUntil) },
      ),
    ),
  );
};

/**
 * Takes a challenge in one conditional delete: true only for a live one handed out under this very
 * binding, which is then gone, so an answer is accepted once. Another binding's attempt leaves it
 * in place (nobody but its browser can spend it).
 */
export const takeChallenge = async (
  challenge: string,
  binding: string,
  now = Date.now(),
): Promise<boolean> => {
  const taken = await takeItem(PasskeyChallengeEntity.key({ digest: digestOf(challenge) }), {
    condition: '#binding = :binding',
    names: { '#binding': 'binding' },
    values: { ':binding': digestOf(binding) },
  });
  return taken !== undefined && PasskeyChallengeEntity.decode(taken).validUntil > now;
};
