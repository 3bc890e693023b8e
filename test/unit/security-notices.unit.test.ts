import { describe, expect, it } from 'vitest';
import { type SecurityChange, securityNoticeText } from '../../shared/email/messages.js';

describe('security notices (OWASP ASVS 2.5.5)', () => {
  const changes: SecurityChange[] = [
    'password',
    'mfa-reset',
    'mfa-enrolled',
    'recovery-codes-regenerated',
    'passkey-added',
    'passkey-removed',
  ];

  it('name the organization and the person, say what changed and what to do if it was not them', () => {
    const texts = changes.map((change) =>
      securityNoticeText(change, { name: 'Ann', organizationName: 'Acme' }),
    );
    for (const [index, { subject, text }] of texts.entries()) {
      expect(subject, changes[index]).toContain('Acme');
      expect(text, changes[index]).toMatch(/^Hello Ann,\n\n.*Acme/);
      expect(text, changes[index]).toContain('If you did not,');
      // Nothing in a notice lets anyone act: no link, no code.
      expect(text, changes[index]).not.toMatch(/https?:|\d{6}/);
    }
    expect(new Set(texts.map((text) => text.subject)).size).toBe(changes.length);
  });
});
