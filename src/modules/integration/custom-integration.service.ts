import type { EntityManager } from '@mikro-orm/postgresql';
import { generateSecret, hashSecret } from '../../shared/secrets.js';
import { newId } from '../../shared/id.js';
import { CustomIntegration } from './custom-integration.entity.js';
import { upsertCustomIntegration } from './integration.repo.js';
import { announceAfterCommit } from '../../kit/signals/signals.js';
import { WEBHOOK_ACCOUNTS_CHANNEL } from './webhook-account.signal.js';

/** Where the business's Custom integration posts its orders (interface 4.9); `':business'` gives the route's pattern. */
export const customWebhookPath = (business: string) => `/webhooks/custom/${business}`;

export interface ConnectedIntegration {
  integration: CustomIntegration;
  /** The webhook bearer secret, shown once; only its hash is stored. */
  secret: string;
  rotated: boolean;
}

/**
 * Connects the Custom order integration of a business, or rotates its secret when already connected: the old
 * secret stops working as soon as this commits. Row-locked so two concurrent connects cannot both "win".
 */
export async function connectCustomIntegration(em: EntityManager, business: string): Promise<ConnectedIntegration> {
  // cisec_ (custom integration secret), unlike the signing secrets of outbound webhooks (whsec_): a secret pasted into
  // the wrong system says so at a glance. Secrets issued as whsec_ before keep working: only their hash is compared.
  const secret = generateSecret('cisec_');
  return em.transactional(async (tx) => {
    // Insert-or-rotate in one statement: safe against a concurrent connect for the same business.
    const row = await upsertCustomIntegration(tx, { id: newId('customIntegration'), business, secretHash: hashSecret(secret), at: new Date() });
    const integration = await tx.findOneOrFail(CustomIntegration, { id: row.id }, { refresh: true });
    // A statement of its own, not the ORM's flush: told here, to every process at the commit (the old secret stops at once).
    announceAfterCommit(tx, WEBHOOK_ACCOUNTS_CHANNEL, business);
    return { integration, secret, rotated: row.rotated };
  });
}

export async function disconnectCustomIntegration(em: EntityManager, business: string): Promise<boolean> {
  const deleted = await em.nativeDelete(CustomIntegration, { business });
  announceAfterCommit(em, WEBHOOK_ACCOUNTS_CHANNEL, business);
  return deleted > 0;
}

export function presentCustomIntegration(integration: CustomIntegration) {
  return {
    object: 'custom_integration' as const,
    business: integration.business,
    connectedAt: integration.connectedAt,
    rotatedAt: integration.rotatedAt ?? null,
  };
}
