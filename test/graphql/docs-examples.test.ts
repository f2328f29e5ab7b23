import 'reflect-metadata';
import fs from 'node:fs';
import { Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { buildAppSchema } from '../../src/graphql/schema.js';
import { costOf, DEFAULT_LIMITS, queryDepthRule } from '../../src/graphql/limits.js';

/** Every ```graphql block of docs/graphql.md, docs/webhooks.md and README.md must stay valid against the schema (and within the limits). */
describe.each(['docs/graphql.md', 'docs/webhooks.md', 'README.md'])('%s examples', (file) => {
  const text = fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const blocks = [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]);

  it('has examples', () => expect(blocks.length).toBeGreaterThanOrEqual(3));

  it.each(blocks.map((b, i) => [i, b]))('example %i validates', async (_i, source) => {
    const schema = await buildAppSchema();
    const document = parse(source as string);
    const errors = validate(schema, document);
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(validate(schema, document, [queryDepthRule()]).map((e) => e.message)).toEqual([]);
    for (const operation of document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)) {
      expect(costOf(schema, document, operation)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxCost);
    }
  });
});
