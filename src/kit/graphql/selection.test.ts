import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { propertiesFor, selectedFields } from './selection.js';

/** The resolve info of the first root field's first child field named `name`, as an executor hands it. */
function infoOf(text: string, name: string) {
  const document = parse(text);
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]),
  );
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const root = operation.selectionSet.selections[0] as FieldNode;
  const fieldNodes = root.selectionSet!.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === name);
  return { fieldNodes, fragments };
}

const READS = { id: ['id'], position: ['position'], metrics: ['type', 'metricIds'], object: [] };

describe('selectedFields and propertiesFor', () => {
  it('read the fields of the selection, through named and inline fragments, once per document', () => {
    const info = infoOf(
      `{ survey { steps { id ...Step ... on SurveyStep { object @include(if: false) } } } } fragment Step on SurveyStep { metrics { metrics { id } } }`,
      'steps',
    );
    const fields = selectedFields(info);
    expect([...fields].sort()).toEqual(['id', 'metrics', 'object']);
    expect(selectedFields(info)).toBe(fields);
    expect(propertiesFor(fields, READS)).toEqual(['id', 'metricIds', 'type']);
  });

  it("read the fields inside child fields of a name (a page's data), through fragments, kept apart from the field's own", () => {
    const info = infoOf('{ x { surveys { total data { id ...S } data { name } } } } fragment S on Survey { steps { id } }', 'surveys');
    expect([...selectedFields(info, 'data')].sort()).toEqual(['id', 'name', 'steps']);
    expect([...selectedFields(info)].sort()).toEqual(['data', 'total']);
    expect(selectedFields(info, 'data')).toBe(selectedFields(info, 'data'));
  });

  it("read the fields at a path of child fields (a page's objects' steps), through fragments at every level", () => {
    const info = infoOf(
      '{ x { surveys { data { id ...S } data { steps { position } } } } } fragment S on Survey { steps { id ... on SurveyStep { metrics { metrics { id } } } } }',
      'surveys',
    );
    expect([...selectedFields(info, 'data.steps')].sort()).toEqual(['id', 'metrics', 'position']);
    expect([...selectedFields(info, 'data.steps.metrics')]).toEqual(['metrics']);
    expect([...selectedFields(info, 'data.name')]).toEqual([]);
  });

  it("read a field's own property when it is stored and the table says nothing of it", () => {
    const fields = selectedFields(infoOf('{ survey { steps { id content metrics { metrics { id } } } } }', 'steps'));
    expect(propertiesFor(fields, READS, new Set(['id', 'content', 'type', 'metricIds']))).toEqual(['content', 'id', 'metricIds', 'type']);
  });

  it('answer every column (undefined) when a selected field is not in the table', () => {
    expect(propertiesFor(selectedFields(infoOf('{ survey { steps { id content } } }', 'steps')), READS)).toBeUndefined();
    expect(propertiesFor(new Set(['toString']), READS)).toBeUndefined();
  });
});
