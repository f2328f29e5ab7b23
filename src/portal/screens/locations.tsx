import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may, ReadOnlyNote } from '../roles';
import { graphql, request, type ResultOf } from '../graphql';
import { CardForm, Cards, DoneNote, Empty, Field, FormError, Loaded, Options, SaveButton, useCardEdits, useLoad, useSubmit, zoneKnown, zoneName } from '../ui';
import { Pager } from '../lists';

const LocationsList = graphql(`
  query LocationsList($business: ID!, $page: Int!) {
    locations(business: $business, page: $page, pageSize: 50, orderBy: [{ field: name, order: asc }]) {
      total page hasMore
      data { id name timeZone metadata }
    }
  }
`);
const CreateLocation = graphql(`
  mutation CreateLocation($business: ID!, $input: CreateLocationInput!) { createLocation(business: $business, input: $input) { id name } }
`);
const UpdateLocation = graphql(`
  mutation UpdateLocation($business: ID!, $id: ID!, $input: UpdateLocationInput!) { updateLocation(business: $business, id: $id, input: $input) { id name } }
`);
const DeleteLocation = graphql(`
  mutation DeleteLocation($business: ID!, $id: ID!) { deleteLocation(business: $business, id: $id) }
`);

type Location = ResultOf<typeof LocationsList>['locations']['data'][number];

/**
 * The metadata key the portal keeps the ordering system's id under. Any value of a location's metadata names it for
 * orders (location.repo.ts), so a location made through the API under another key still matches its orders.
 */
const ORDERING_KEY = 'externalLocationId';

let zones: string[] | undefined;
/** Every IANA zone this browser knows, UTC included, and `extra` (a stored zone it lists under another name). */
function zoneChoices(extra: string): string[] {
  zones ??= [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])].sort();
  return extra && !zones.includes(extra) ? [extra, ...zones] : zones;
}
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
/** The business's zone in words, for the choice that follows it. */
const businessZone = () => (zoneKnown() ? `the business's, ${zoneName()}` : "the business's (none set yet, so UTC)");

/** Branches or outlets: each with its time zone (its analytics days, its quiet hours) and the id orders name it by. */
export default function Locations({ session, query }: ScreenProps) {
  const business = session.business;
  const page = Number(query.get('page') ?? 0) || 0;
  const state = useLoad(() => request(LocationsList, { business, page }), `${business}/${page}`);
  const mayChange = may(session, 'locations:write');
  const edits = useCardEdits(state.reload);
  return (
    <>
      <h1 tabIndex={-1}>Locations</h1>
      <p>
        Each branch or outlet: its time zone decides the day a rating counts on and when quiet hours start; the id your ordering system gives it ties its
        orders, and their feedback, to it.
      </p>
      {!mayChange && <ReadOnlyNote scope="locations:write">add, change and delete locations. You can see them here.</ReadOnlyNote>}
      <DoneNote done={edits.done} />
      <Loaded state={state} what="locations">
        {(data) =>
          data.locations.data.length ? (
            <>
              <Cards
                label="Locations"
                items={data.locations.data}
                facts={(l) => <LocationFacts location={l} />}
                edits={edits}
                mayChange={mayChange}
                consequence="Its feedback and orders stay, no longer tied to it; links and QR codes that name it stop finding it."
                onDelete={(l) => request(DeleteLocation, { business, id: l.id })}
                form={(l) => <LocationForm business={business} location={l} onSaved={(name) => edits.changed(`${name} saved.`)} />}
              />
              {(page > 0 || data.locations.hasMore) && <Pager list={data.locations} query={query} />}
            </>
          ) : (
            <Empty>
              No location yet. {mayChange ? 'Add each branch below' : 'An owner or a manager can add them'}: until then every order and answer counts for the
              business as a whole.
            </Empty>
          )
        }
      </Loaded>
      {mayChange && <LocationForm business={business} onSaved={(name) => edits.changed(`${name} added.`)} />}
    </>
  );
}

function LocationFacts({ location: l }: { location: Location }) {
  const { [ORDERING_KEY]: orderingId, ...others } = l.metadata as Record<string, string>;
  return (
    <dl class="facts">
      <dt>Time zone</dt>
      <dd>{l.timeZone ?? businessZone()}</dd>
      <dt>Id in the ordering system</dt>
      <dd>{orderingId ?? 'none'}</dd>
      {Object.entries(others).flatMap(([k, v]) => [<dt key={`k-${k}`}>{k}</dt>, <dd key={`v-${k}`}>{v}</dd>])}
    </dl>
  );
}

interface Pair {
  key: string;
  value: string;
}

/** The form of a new location, or of `location`; what was typed stays when the API refuses it. */
function LocationForm({ business, location, onSaved }: { business: string; location?: Location; onSaved: (name: string) => void }) {
  const stored = (location?.metadata ?? {}) as Record<string, string>;
  const [name, setName] = useState(location?.name ?? '');
  // A new location follows the business's zone when it has one, else starts in this browser's zone.
  const [zone, setZone] = useState(location ? (location.timeZone ?? '') : zoneKnown() ? '' : browserZone());
  const [orderingId, setOrderingId] = useState(stored[ORDERING_KEY] ?? '');
  const [pairs, setPairs] = useState<Pair[]>(() =>
    Object.entries(stored)
      .filter(([k]) => k !== ORDERING_KEY)
      .map(([key, value]) => ({ key, value })),
  );
  const submit = useSubmit();
  const [blocked, setBlocked] = useState(false);
  const f = submit.fields;
  const given = pairs.filter((p) => p.key.trim() || p.value);
  // The metadata is one object: a key given twice (or the ordering id's own) would keep only one of the values.
  const clash = (p: Pair): string | undefined => {
    const key = p.key.trim();
    if (!given.includes(p)) return undefined;
    if (key === ORDERING_KEY) return 'is where the id in your ordering system is kept: type that id above';
    return given.findIndex((q) => q.key.trim() === key) < given.indexOf(p) ? 'is given twice' : undefined;
  };
  const pairError = (p: Pair) => clash(p) ?? f[`metadata.${p.key.trim()}`];
  const setPair = (i: number, change: Partial<Pair>) => setPairs(pairs.map((p, j) => (j === i ? { ...p, ...change } : p)));
  const title = location ? `Edit ${location.name}` : 'New location';
  return (
    <CardForm
      label={title}
      onSubmit={async () => {
        setBlocked(given.some(clash));
        if (given.some(clash)) return;
        const metadata = Object.fromEntries([...(orderingId.trim() ? [[ORDERING_KEY, orderingId.trim()]] : []), ...given.map((p) => [p.key.trim(), p.value])]);
        const input = { name, timeZone: zone || null, metadata };
        const saved = location
          ? (await submit.run(() => request(UpdateLocation, { business, id: location.id, input })))?.updateLocation
          : (await submit.run(() => request(CreateLocation, { business, input })))?.createLocation;
        if (!saved) return;
        if (!location) {
          setName('');
          setOrderingId('');
          setPairs([]);
        }
        onSaved(saved.name);
      }}
    >
      {!location && <h2>New location</h2>}
      <Field label="Name" error={f.name} hint="As your staff and guests know it: “Gulberg”, “Airport kiosk”.">
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!f.name} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Time zone" error={f.timeZone} hint="The day each rating counts on, and the evening a flow's quiet hours start in.">
        {(id, d) => (
          <select id={id} aria-describedby={d} aria-invalid={!!f.timeZone} value={zone} onChange={(e) => setZone(e.currentTarget.value)}>
            <option value="">Same as {businessZone()}</option>
            <Options of={zoneChoices(zone)} />
          </select>
        )}
      </Field>
      <Field
        label="Id in your ordering system (optional)"
        error={f[`metadata.${ORDERING_KEY}`]}
        hint="The location id your POS or ordering app sends with each order (externalLocationId): its orders are then this location's."
      >
        {(id, d) => (
          <input
            id={id}
            aria-describedby={d}
            aria-invalid={!!f[`metadata.${ORDERING_KEY}`]}
            value={orderingId}
            onInput={(e) => setOrderingId(e.currentTarget.value)}
          />
        )}
      </Field>
      <fieldset>
        <legend>More details (optional)</legend>
        <p class="muted">Pairs your other systems use, such as a branch code; a survey link can name the location by one (location:metadata).</p>
        {pairs.map((p, i) => (
          <div class="row pair" key={i}>
            <Field label={`Key ${i + 1}`} error={pairError(p)}>
              {(id, d) => (
                <input id={id} aria-describedby={d} aria-invalid={!!pairError(p)} value={p.key} onInput={(e) => setPair(i, { key: e.currentTarget.value })} />
              )}
            </Field>
            <Field label={`Value ${i + 1}`}>
              {(id, d) => <input id={id} aria-describedby={d} value={p.value} onInput={(e) => setPair(i, { value: e.currentTarget.value })} />}
            </Field>
            <button type="button" class="secondary" aria-label={`Remove pair ${i + 1}`} onClick={() => setPairs(pairs.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        ))}
        {f.metadata && <span class="field-error">{f.metadata}</span>}
        <button type="button" class="secondary" onClick={() => setPairs([...pairs, { key: '', value: '' }])}>
          Add a pair
        </button>
      </fieldset>
      {blocked && given.some(clash) && (
        <p class="failure" role="alert">
          Please correct the highlighted fields.
        </p>
      )}
      <FormError error={submit.error} shown={Object.keys(f).filter((k) => /^(name|timeZone|metadata)(\.|$)/.test(k))} />
      <SaveButton busy={submit.busy} label={location ? 'Save location' : 'Add location'} />
    </CardForm>
  );
}
