import type { EntityManager } from '@mikro-orm/postgresql';
import { Checks } from '../../shared/validation.js';
import { findOwned } from '../../kit/resource/resource.js';
import { Location } from '../location/index.js';
import { Order } from '../order/index.js';
import { findSurvey } from './survey.service.js';

/** The channels a link can carry as `ch` (interface 4.9), recorded on the submission it brings. */
export const LINK_CHANNELS = ['qr', 'link', 'sms', 'email'] as const;

/** Where guests answer a survey: `{SURVEY_URL}/survey/{business}/{survey}`. */
export const surveyUrl = (base: string, business: string, survey: string) => `${base}/survey/${business}/${survey}`;

/**
 * A survey link with interface 4.9's parameters: the location as `location:metadata=<key>.<value>` (its first metadata
 * key in sort order, so the link stays the same), the order as `custom.customOrderId` (+ `custom.customLocationId`
 * when it was sent with one), and the channel as `ch`.
 */
export async function surveyLink(
  em: EntityManager,
  base: string,
  business: string,
  surveyId: string,
  options: { location?: string | null; orderId?: string | null; channel?: string | null },
): Promise<string> {
  const survey = await findSurvey(em, business, surveyId);
  const checks = new Checks();
  if (options.channel != null && !(LINK_CHANNELS as readonly string[]).includes(options.channel)) {
    checks.fail('channel', `must be one of ${LINK_CHANNELS.join(', ')}`);
  }
  const params = new URLSearchParams();
  if (options.orderId != null) {
    const order = await findOwned(em, Order, { kind: 'order', label: 'Order', business, id: options.orderId });
    params.set('custom.customOrderId', order.externalOrderId);
    if (order.externalLocationId) params.set('custom.customLocationId', order.externalLocationId);
  }
  if (options.location != null) {
    const location = await findOwned(em, Location, { kind: 'location', label: 'Location', business, id: options.location });
    const key = Object.keys(location.metadata).sort()[0];
    if (key === undefined) checks.fail('location', 'has no metadata to name it by on a link (location:metadata=<key>.<value>)');
    else params.set('location:metadata', `${key}.${location.metadata[key]}`);
  }
  checks.throwIfAny();
  if (options.channel) params.set('ch', options.channel);
  const query = params.toString().replace(/location%3Ametadata=/, 'location:metadata=');
  return query ? `${surveyUrl(base, business, survey.id)}?${query}` : surveyUrl(base, business, survey.id);
}
