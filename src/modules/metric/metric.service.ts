import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { createRecorded, deleteRecorded, updateRecorded } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { Checks } from '../../shared/validation.js';
import { forgetMetricRatings } from '../analytics/index.js';
import { Metric } from './metric.entity.js';
import { stepIdsRatingMetric } from './metric.repo.js';
import type { MetricType } from './metric.type.js';
import type { CreateMetricInput, UpdateMetricInput } from './metric.inputs.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

export const presentMetric = ownedPresenter<Metric, MetricType>('metric', {
  name: 'name',
  description: 'description?',
  scale: (metric) => ({ min: metric.scaleMin, max: metric.scaleMax }),
});

// smallint columns; a scale wider than 0..100 is almost surely a mistake.
const SCALE_LIMIT = 100;

function check(input: Partial<CreateMetricInput>, creating: boolean) {
  const checks = new Checks();
  if (creating || input.name !== undefined) checks.text('name', input.name, { required: true, max: 200 });
  checks.text('description', input.description, { max: 10_000 });
  if (input.scale) {
    const { min, max } = input.scale;
    if (min < 0 || max > SCALE_LIMIT) checks.fail('scale', `must lie within 0 to ${SCALE_LIMIT}`);
    else if (min >= max) checks.fail('scale', 'min must be below max');
  }
  checks.throwIfAny();
}

const { find: findMetric, list: listMetrics, recorded } = ownedResource(Metric, { kind: 'metric', label: 'Metric', present: presentMetric });

export function createMetric(em: EntityManager, business: string, input: CreateMetricInput): Promise<MetricType> {
  check(input, true);
  return createRecorded(em, recorded, business, (tx) =>
    tx.create(Metric, {
      business,
      name: input.name.trim(),
      description: input.description ?? null,
      scaleMin: input.scale?.min ?? 1,
      scaleMax: input.scale?.max ?? 5,
    }),
  );
}

function updateMetric(em: EntityManager, business: string, id: string, input: UpdateMetricInput): Promise<MetricType> {
  check(input, false);
  return updateRecorded(em, recorded, business, id, (metric) => {
    if (input.name != null) metric.name = input.name.trim();
    if (input.description !== undefined) metric.description = input.description;
    if (input.scale) {
      metric.scaleMin = input.scale.min;
      metric.scaleMax = input.scale.max;
    }
  });
}

/** Step ids of the business whose metrics list holds this metric. */
const stepsUsingMetric = (em: EntityManager, business: string, metricId: string): Promise<string[]> => stepIdsRatingMetric(em, business, metricId);

/**
 * Refused (409, listing the steps) while a step rates it. The row lock pairs with the share lock that step writes
 * take on their metrics, so a step cannot start using a metric that is being deleted.
 */
function deleteMetric(em: EntityManager, business: string, id: string): Promise<string> {
  return deleteRecorded(em, recorded, business, id, async (metric, tx) => {
    const steps = await stepsUsingMetric(tx, business, metric.id);
    if (steps.length) {
      throw new AppError(
        'conflict',
        `Metric '${metric.id}' is used by ${steps.length} survey step(s): ${steps.join(', ')}`,
        steps.map((step) => ({ field: 'steps', message: step })),
      );
    }
    await forgetMetricRatings(tx, business, metric.id);
    tx.remove(metric);
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listMetrics, find: findMetric, present: presentMetric, create: createMetric, update: updateMetric, delete: deleteMetric };
