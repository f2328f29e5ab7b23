import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../auth/principal.js';
import { AppError } from '../../shared/errors.js';
import { missingToHear, recordEvent, deleteRecorded, updateRecorded, EVENT_TYPES } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { Checks } from '../../shared/validation.js';
import { Webhook } from './webhook.entity.js';
import type { WebhookType } from './webhook.type.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './webhook.inputs.js';
import { generateWebhookSecret } from './webhook-signature.rules.js';
import { webhookUrlProblem, type WebhookPolicy } from './webhook.policy.js';
import type { WriteContext } from '../../kit/graphql/context.js';

/** After a rotation the old secret signs too, for this long. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Never the secret: the create answer adds it, once. */
export function presentWebhook(webhook: Webhook): WebhookType {
  return {
    id: webhook.id,
    object: 'webhook',
    business: webhook.business,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description ?? null,
    enabled: webhook.enabled,
    secret: null,
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

async function check(input: Partial<CreateWebhookInput>, creating: boolean, policy: WebhookPolicy) {
  const checks = new Checks();
  if (creating || input.url != null) {
    const problem = await webhookUrlProblem(input.url ?? '', policy);
    if (problem) checks.fail('url', problem);
  }
  if (creating || input.events != null) {
    const events = input.events ?? [];
    if (!events.length) checks.fail('events', 'must list at least one event type, or "*"');
    for (const type of events) {
      if (type !== '*' && !EVENT_TYPES.includes(type)) checks.fail('events', `'${type}' is not an event type; allowed: *, ${EVENT_TYPES.join(', ')}`);
    }
    if (events.includes('*') && events.length > 1) checks.fail('events', '"*" stands alone');
  }
  checks.text('description', input.description, { max: 1000 });
  checks.throwIfAny();
}

/**
 * A webhook posts its events' payloads (an order's customer e-mail and phone...) to its URL: whoever subscribes it,
 * or points it elsewhere, must be able to read them, by the rule of live subscriptions (event.policy.ts).
 */
function assertMayHear(actor: Principal | undefined, events: readonly string[]) {
  if (!actor) return; // the admin CLI and the service's own writers act for the business, not for a token
  const missing = missingToHear(actor.scopes, events);
  if (!missing.length) return;
  const what = events.includes('*') ? '"*" (every event type)' : events.join(', ');
  throw new AppError(
    'forbidden',
    `This token may not subscribe a webhook to ${what}: it lacks ${missing.join(', ')} (or events:read), the read scope of what those events carry`,
    [{ field: 'events', message: `needs ${missing.join(', ')}` }],
  );
}

const { find: findWebhook, list: listWebhooks, recorded } = ownedResource(Webhook, { kind: 'webhook', label: 'Webhook', present: presentWebhook });
export { findWebhook };

/**
 * A webhook created or enabled is written before the event of its change (the ORM would insert the event first): its
 * trigger takes the business's audience lock exclusively before the event's trigger would take it shared (two such
 * transactions each holding it shared could then deadlock, each waiting for the other), and the event sees the webhook
 * enabled, so it reaches the webhook itself when it subscribes to `*`, as every event committed with or after it does.
 */
const writeBeforeItsEvent = (tx: EntityManager) => tx.flush();

async function createWebhook(em: EntityManager, business: string, input: CreateWebhookInput, ctx: WriteContext): Promise<WebhookType> {
  await check(input, true, ctx.services.webhooks);
  assertMayHear(ctx.auth, input.events);
  return em.transactional(async (tx) => {
    const secret = generateWebhookSecret();
    const webhook = tx.create(Webhook, {
      business,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      secret,
    });
    await writeBeforeItsEvent(tx);
    const presented = presentWebhook(webhook);
    recordEvent(tx, business, 'webhook.created', presented);
    return { ...presented, secret };
  });
}

async function updateWebhook(em: EntityManager, business: string, id: string, input: UpdateWebhookInput, ctx: WriteContext): Promise<WebhookType> {
  await check(input, false, ctx.services.webhooks);
  return updateRecorded(em, recorded, business, id, async (webhook, tx) => {
    // Where its payloads go, which ones, or that they go at all: the same rule as at creation.
    if (input.url != null || input.events != null || input.enabled === true) assertMayHear(ctx.auth, input.events ?? webhook.events);
    if (input.url != null) webhook.url = input.url;
    if (input.events != null) webhook.events = [...new Set(input.events)];
    if (input.description !== undefined) webhook.description = input.description;
    // Re-enabled: its failing streak starts again (else the automatic disabling could strike at once).
    if (input.enabled === true && !webhook.enabled) webhook.failingSince = null;
    const enabling = input.enabled === true && !webhook.enabled;
    if (input.enabled != null) webhook.enabled = input.enabled;
    if (enabling) await writeBeforeItsEvent(tx);
  });
}

function deleteWebhook(em: EntityManager, business: string, id: string): Promise<string> {
  return deleteRecorded(em, recorded, business, id);
}

/** A new secret, answered once; the old one keeps signing beside it for ROTATION_OVERLAP_MS. */
export function rotateWebhookSecret(em: EntityManager, business: string, id: string): Promise<WebhookType> {
  return em.transactional(async (tx) => {
    const webhook = await findWebhook(tx, business, id, true);
    await tx.populate(webhook, ['secret']);
    const secret = generateWebhookSecret();
    webhook.secretPrevious = webhook.secret;
    webhook.secretPreviousUntil = new Date(Date.now() + ROTATION_OVERLAP_MS);
    webhook.secret = secret;
    webhook.updatedAt = new Date();
    const presented = presentWebhook(webhook);
    recordEvent(tx, business, 'webhook.updated', presented);
    return { ...presented, secret };
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listWebhooks, find: findWebhook, present: presentWebhook, create: createWebhook, update: updateWebhook, delete: deleteWebhook };
