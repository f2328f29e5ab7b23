import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** By the field nodes of a resolver's field, then `under`: a compiled or cached document hands every call the same nodes. */
const selected = new WeakMap<readonly FieldNode[], Map<string, ReadonlySet<string>>>();

/**
 * The names of the fields a resolver's own field selects (fragments followed, @skip and @include ignored: a field
 * that may be skipped is still read), so a list can read only the columns its answer shows. With `under`, a path of
 * child field names ('data', 'data.steps'), the fields selected inside the fields at that path instead (a page's
 * `data`, its objects' steps).
 */
export function selectedFields(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, under = ''): ReadonlySet<string> {
  let byPath = selected.get(info.fieldNodes);
  if (!byPath) selected.set(info.fieldNodes, (byPath = new Map()));
  let names = byPath.get(under);
  if (!names) byPath.set(under, (names = new Set(fieldsOf(info, under ? under.split('.') : []).map((field) => field.name.value))));
  return names;
}

/** The field nodes selected inside `fieldNodes`, then inside those of each name of `path` in turn. */
function fieldsOf({ fieldNodes, fragments }: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>, path: string[]): FieldNode[] {
  let fields: readonly FieldNode[] = fieldNodes;
  for (const name of [...path, '']) {
    const children: FieldNode[] = [];
    const seen = new Set<string>();
    const walk = (set: SelectionSetNode | undefined) => {
      for (const node of set?.selections ?? []) {
        if (node.kind === Kind.FIELD) {
          if (!name || node.name.value === name) children.push(node);
        } else if (node.kind === Kind.INLINE_FRAGMENT) walk(node.selectionSet);
        else if (!seen.has(node.name.value)) {
          seen.add(node.name.value);
          walk(fragments[node.name.value]?.selectionSet);
        }
      }
    };
    for (const field of fields) walk(field.selectionSet);
    fields = children;
  }
  return fields as FieldNode[];
}

/**
 * The stored properties a selection needs: what `reads` says a field reads (a field resolver's inputs, or nothing for
 * a constant), else the field's own property when `stored` has it; undefined (every column) when a field is neither,
 * so a field added to the type without a column or an entry costs columns, not data. A `reads` table belongs to one
 * entity (its `stored`): answers are kept by selection and table.
 */
export function propertiesFor(
  fields: ReadonlySet<string>,
  reads: Readonly<Record<string, readonly string[]>>,
  stored: { has(property: string): boolean } = new Set<string>(),
): string[] | undefined {
  let byTable = needed.get(fields);
  if (!byTable) needed.set(fields, (byTable = new Map()));
  if (byTable.has(reads)) return byTable.get(reads);
  const properties = new Set<string>();
  let all = false;
  for (const field of fields) {
    const needs = Object.hasOwn(reads, field) ? reads[field] : stored.has(field) ? [field] : undefined;
    if (!needs) all = true;
    else for (const p of needs) properties.add(p);
  }
  const answer = all ? undefined : [...properties].sort();
  byTable.set(reads, answer);
  return answer;
}

/** propertiesFor's answers, by selection (one per document's field) and table: a page asks once per parent row. */
const needed = new WeakMap<ReadonlySet<string>, Map<object, string[] | undefined>>();
