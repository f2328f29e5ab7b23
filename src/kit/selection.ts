import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/** By the field nodes of a resolver's field: a compiled or cached document hands every call the same ones. */
const selected = new WeakMap<readonly FieldNode[], ReadonlySet<string>>();

/**
 * The names of the fields a resolver's own field selects (fragments followed, @skip and @include ignored: a field
 * that may be skipped is still read), so a list can read only the columns its answer shows.
 */
export function selectedFields(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): ReadonlySet<string> {
  let names = selected.get(info.fieldNodes);
  if (!names) {
    const found = new Set<string>();
    const seen = new Set<string>();
    const walk = (set: SelectionSetNode | undefined) => {
      for (const node of set?.selections ?? []) {
        if (node.kind === Kind.FIELD) found.add(node.name.value);
        else if (node.kind === Kind.INLINE_FRAGMENT) walk(node.selectionSet);
        else if (!seen.has(node.name.value)) {
          seen.add(node.name.value);
          walk(info.fragments[node.name.value]?.selectionSet);
        }
      }
    };
    for (const node of info.fieldNodes) walk(node.selectionSet);
    selected.set(info.fieldNodes, (names = found));
  }
  return names;
}

/**
 * The stored properties a selection needs, from a type's table of what each field reads; undefined (every column)
 * when a field is missing from the table, so a field added to the type without its entry costs columns, not data.
 */
export function propertiesFor(fields: ReadonlySet<string>, reads: Readonly<Record<string, readonly string[]>>): string[] | undefined {
  let byTable = needed.get(fields);
  if (!byTable) needed.set(fields, (byTable = new Map()));
  if (byTable.has(reads)) return byTable.get(reads);
  const properties = new Set<string>();
  let all = false;
  for (const field of fields) {
    const needs = Object.hasOwn(reads, field) ? reads[field] : undefined;
    if (!needs) all = true;
    else for (const p of needs) properties.add(p);
  }
  const answer = all ? undefined : [...properties].sort();
  byTable.set(reads, answer);
  return answer;
}

/** propertiesFor's answers, by selection (one per document's field) and table: a page asks once per parent row. */
const needed = new WeakMap<ReadonlySet<string>, Map<object, string[] | undefined>>();
