import { useEffect, useRef, useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may, ReadOnlyNote } from '../roles';
import { graphql, request, type ResultOf, type VariablesOf } from '../graphql';
import {
  CardForm,
  Empty,
  Failure,
  Field,
  FormError,
  Loaded,
  Options,
  OrderLines,
  TextField,
  formatAge,
  formatDate,
  formatMoney,
  useLoad,
  useNow,
  useSubmit,
} from '../ui';
import { FilterSelect, Pager } from '../lists';
import { useLiveEvents } from '../live';
import { AnswerList } from '../answers';

const InboxCases = graphql(`
  query InboxCases($business: ID!, $active: CaseWhere!, $closed: CaseWhere!, $page: Int!, $withActive: Boolean!, $withClosed: Boolean!) {
    active: cases(business: $business, where: $active, pageSize: 100, orderBy: [{ field: openedAt, order: desc }]) @include(if: $withActive) {
      total hasMore
      data { id severity status reason assignee openedAt recoveredBy { order offer } guest { name email phone } location { id name } }
    }
    closed: cases(business: $business, where: $closed, page: $page, pageSize: 20, orderBy: [{ field: openedAt, order: desc }]) @include(if: $withClosed) {
      total page hasMore
      data { id severity status reason assignee openedAt recoveredBy { order offer } guest { name email phone } location { id name } }
    }
  }
`);

const InboxFilters = graphql(`
  query InboxFilters($business: ID!) {
    locations(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
  }
`);

const MemberNames = graphql(`
  query CaseMembers($business: ID!) {
    members(business: $business, pageSize: 100, orderBy: [{ field: createdAt, order: asc }]) { data { id user email name role } }
  }
`);

const CaseItem = graphql(`
  query CaseItem($business: ID!, $id: ID!) {
    case(business: $business, id: $id) {
      id severity status reason assignee openedAt firstReplyAt resolvedAt recoveredAt
      recoveredBy { order offer }
      guest { name email phone }
      location { id name }
      submission {
        id createdAt completedAt
        answers { step value ratings items }
        analysis { step themes { theme sentiment } }
        survey { id name steps { id position type content metrics { metrics { id name scale { min max } } } } }
      }
      order {
        id externalOrderId total currency status channel createdAt
        items { id name itemId quantity unitPrice totalPrice itemComment menuItem { id name } }
      }
    }
    caseMessages(business: $business, case: $id, pageSize: 100, orderBy: [{ field: createdAt, order: desc }]) {
      total
      data { id direction channel body status error author createdAt }
    }
    offers(business: $business, case: $id, pageSize: 100, orderBy: [{ field: createdAt, order: desc }]) {
      data { id description code expiresAt redeemedAt redeemedOrder }
    }
    replyTemplates(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name body } }
  }
`);

const RecoveringOrder = graphql(`
  query RecoveringOrder($business: ID!, $id: ID!) {
    order(business: $business, id: $id) { id externalOrderId }
  }
`);

const CreateCaseMessage = graphql(`
  mutation CreateCaseMessage($business: ID!, $case: ID!, $input: CreateCaseMessageInput!) {
    createCaseMessage(business: $business, case: $case, input: $input) { id status channel }
  }
`);

const CreateOffer = graphql(`
  mutation CreateOffer($business: ID!, $case: ID!, $input: CreateOfferInput!) {
    createOffer(business: $business, case: $case, input: $input) { id code expiresAt }
  }
`);

const UpdateCase = graphql(`
  mutation UpdateCase($business: ID!, $id: ID!, $input: UpdateCaseInput!) {
    updateCase(business: $business, id: $id, input: $input) { id status assignee resolvedAt }
  }
`);

/** Every change to a case, from this screen, another member's or the service's own (a reply, a recovery). */
const LIVE_TYPES = ['case.opened', 'case.updated', 'case.recovered'];
/** A case's screen also follows its thread (a reply queued, then sent or failed; the guest's SMS) and its offers. */
const CASE_LIVE_TYPES = [...LIVE_TYPES, 'casemessage.created', 'casemessage.updated', 'offer.created', 'offer.redeemed'];
const ACTIVE = ['open', 'replied'];
const CLOSED = ['resolved', 'recovered'];
const STATUSES = [...ACTIVE, ...CLOSED];
const STATUS_LABEL: Record<string, string> = { open: 'Open', replied: 'Replied', resolved: 'Resolved', recovered: 'Recovered' };
const statusLabel = (s: string) => STATUS_LABEL[s] ?? s;
const SEVERITIES = [
  { id: 'urgent', name: 'Urgent' },
  { id: 'normal', name: 'Normal' },
];

type CaseWhere = NonNullable<VariablesOf<typeof InboxCases>['active']>;
type Row = NonNullable<ResultOf<typeof InboxCases>['active']>['data'][number];
type Member = ResultOf<typeof MemberNames>['members']['data'][number];

const memberLabel = (m: Member) => m.name || m.email;
/**
 * An assignee's name once the members are read: "a member" when they are not the viewer's to see (or gone), nothing
 * while they are still being read, so a name is never first shown as "a member".
 */
const assigneeName = (id: string, members: Member[] | undefined) => {
  if (!members) return undefined;
  const m = members.find((x) => x.id === id);
  return m ? memberLabel(m) : 'a member';
};
const guestLabel = (g: { name?: string | null; email?: string | null; phone?: string | null }) => g.name || g.email || g.phone || 'A guest';

/** The members of the business, for naming assignees (a role without members:read sees "a member"). */
function useMembers(session: ScreenProps['session']) {
  const allowed = may(session, 'members:read');
  return useLoad(
    () => (allowed ? request(MemberNames, { business: session.business }).then((r) => r.members.data) : Promise.resolve([] as Member[])),
    `${session.business}/${allowed}`,
  );
}

function whereOf(query: URLSearchParams): { active?: CaseWhere; closed?: CaseWhere } {
  const base: CaseWhere = {};
  if (query.get('severity')) base.severity = { eq: query.get('severity')! };
  if (query.get('location')) base.location = { eq: query.get('location')! };
  if (query.get('assignee')) base.assignee = { eq: query.get('assignee')! };
  const status = query.get('status');
  if (status && ACTIVE.includes(status)) return { active: { ...base, status: { eq: status } } };
  if (status && CLOSED.includes(status)) return { closed: { ...base, status: { eq: status } } };
  return { active: { ...base, status: { in: ACTIVE } }, closed: { ...base, status: { in: CLOSED } } };
}

/** Urgent on top, then cases not yet answered, then the newest. */
const byUrgency = (a: Row, b: Row) =>
  Number(b.severity === 'urgent') - Number(a.severity === 'urgent') || Number(b.status === 'open') - Number(a.status === 'open') || b.openedAt - a.openedAt;

/** A case's status as a badge; a recovered one is green. */
function CaseStatus({ status }: { status: string }) {
  return <span class={`status case-${status}`}>{statusLabel(status)}</span>;
}

function Severity({ severity }: { severity: string }) {
  return severity === 'urgent' ? <span class="status urgent">Urgent</span> : null;
}

/**
 * What arrived live since the list was first shown with these filters, in words (also said by screen readers): "New
 * case: Ayesha Khan, Food 1 of 5". A change of filters starts again without announcing anything.
 */
function useArrivals(rows: Row[] | undefined, key: string): string {
  const seen = useRef<{ key: string; ids: Set<string> } | undefined>(undefined);
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (!rows) return;
    const before = seen.current;
    seen.current = { key, ids: new Set(rows.map((r) => r.id)) };
    if (!before || before.key !== key) return setSaid('');
    const fresh = rows.filter((r) => !before.ids.has(r.id));
    if (fresh.length === 1) setSaid(`New case: ${guestLabel(fresh[0].guest)}, ${fresh[0].reason}.`);
    else if (fresh.length > 1) setSaid(`${fresh.length} new cases.`);
  }, [rows, key]);
  return said;
}

/** The unhappy guests' cases: open ones first (urgent on top), then the closed ones, a page at a time. */
export default function Inbox({ session, query }: ScreenProps) {
  const business = session.business;
  const page = Number(query.get('page') ?? 0) || 0;
  const where = whereOf(query);
  const list = useLoad(
    () =>
      request(InboxCases, { business, active: where.active ?? {}, closed: where.closed ?? {}, page, withActive: !!where.active, withClosed: !!where.closed }),
    `${business}/${query}`,
  );
  // New cases and every change (another member's reply, a guest coming back) show up while the Inbox is open.
  useLiveEvents(business, LIVE_TYPES, list.reload);
  const arrived = useArrivals(list.loading ? undefined : list.data?.active?.data, `${business}/${query}`);
  const filters = useLoad(() => request(InboxFilters, { business }), business);
  const members = useMembers(session);
  const now = useNow();
  const assigned = (id: string | null) => {
    if (!id) return 'Unassigned';
    const name = assigneeName(id, members.data);
    return name ? `Assigned to ${name}` : 'Assigned';
  };
  const cases = (rows: Row[], label: string) => (
    <ol class="cases" aria-label={label}>
      {rows.map((c) => (
        <li key={c.id} class={`case ${c.severity} ${c.status}`}>
          <div class="case-head">
            <a href={`/portal/cases/${c.id}`}>
              {guestLabel(c.guest)}: {c.reason}
            </a>
            <span class="badges">
              {c.severity === 'urgent' && (
                <>
                  <Severity severity={c.severity} />{' '}
                </>
              )}
              <CaseStatus status={c.status} />
            </span>
          </div>
          <p class="muted case-meta">
            <span title={formatDate(c.openedAt)}>Opened {formatAge(c.openedAt, now)} ago</span>
            {c.location && <> · {c.location.name}</>}
            {' · '}
            {assigned(c.assignee ?? null)}
            {c.status === 'recovered' && (
              <>
                {' '}
                · <span class="ok">{c.recoveredBy?.offer ? 'Came back with an offer' : c.recoveredBy ? 'Came back on their own' : 'Marked recovered'}</span>
              </>
            )}
          </p>
        </li>
      ))}
    </ol>
  );
  return (
    <>
      <h1 tabIndex={-1}>Inbox</h1>
      <p>Guests whose answers matched an alert rule: answer them, make it right, and see who came back.</p>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect query={query} name="status" label="Status" choices={STATUSES.map((s) => ({ id: s, name: statusLabel(s) }))} />
        <FilterSelect query={query} name="severity" label="Severity" choices={SEVERITIES} />
        <FilterSelect query={query} name="location" label="Location" choices={filters.data?.locations.data ?? []} />
        {may(session, 'members:read') && (
          <FilterSelect query={query} name="assignee" label="Assigned to" choices={members.data?.map((m) => ({ id: m.id, name: memberLabel(m) })) ?? []} />
        )}
      </form>
      <p class="muted" role="status" data-testid="arrivals">
        {arrived}
      </p>
      <Loaded state={list} what="cases">
        {(r) => {
          const active = r.active ? [...r.active.data].sort(byUrgency) : undefined;
          if (!active?.length && !r.closed?.data.length) {
            return (
              <Empty>
                {query.toString() ? (
                  <>
                    No case matches. <a href="/portal/cases">Clear the filters</a>
                  </>
                ) : (
                  <>
                    No unhappy guest so far. Cases open here when an answer matches one of your <a href="/portal/alerts">alert rules</a>.
                  </>
                )}
              </Empty>
            );
          }
          return (
            <>
              {active && (
                <section aria-labelledby="active-cases">
                  <h2 id="active-cases">
                    Open <span class="muted">({r.active!.total})</span>
                  </h2>
                  {active.length ? cases(active, 'Open cases') : <p class="muted">Nothing waiting: every case is answered and closed.</p>}
                  {r.active!.hasMore && <p class="muted">The 100 newest are shown; filter by location or severity to see the others.</p>}
                </section>
              )}
              {r.closed && (
                <section aria-labelledby="closed-cases">
                  <h2 id="closed-cases">
                    Closed <span class="muted">({r.closed.total})</span>
                  </h2>
                  {r.closed.data.length ? (
                    <>
                      {cases(r.closed.data, 'Closed cases')}
                      <Pager list={r.closed} query={query} />
                    </>
                  ) : (
                    <p class="muted">None yet.</p>
                  )}
                </section>
              )}
            </>
          );
        }}
      </Loaded>
    </>
  );
}

type Detail = ResultOf<typeof CaseItem>['case'];
type Thread = ResultOf<typeof CaseItem>['caseMessages'];
type OfferRow = ResultOf<typeof CaseItem>['offers']['data'][number];
type Template = ResultOf<typeof CaseItem>['replyTemplates']['data'][number];
const CHANNEL_WORDS: Record<string, string> = { email: 'e-mail', sms: 'SMS' };
const channelWord = (c: string) => CHANNEL_WORDS[c] ?? c;

/** What recovered the case: the order that brought the guest back, and the offer it redeemed if any. */
function Recovery({ business, session, c, offers }: { business: string; session: ScreenProps['session']; c: Detail; offers: OfferRow[] }) {
  const by = c.recoveredBy;
  const order = useLoad(
    () => (by && may(session, 'orders:read') ? request(RecoveringOrder, { business, id: by.order }).then((r) => r.order) : Promise.resolve(null)),
    `${business}/${by?.order}`,
  );
  if (c.status !== 'recovered') return null;
  const orderLink = by ? <a href={`/portal/orders/${by.order}`}>order {order.data?.externalOrderId ?? by.order}</a> : null;
  return (
    <p class="recovered" role="note" data-testid="recovered-by">
      <strong>Recovered</strong>
      {c.recoveredAt ? ` on ${formatDate(c.recoveredAt)}` : ''}:{' '}
      {by ? (
        by.offer ? (
          <>
            the guest came back with {orderLink}, redeeming the offer <code>{offers.find((o) => o.id === by.offer)?.code ?? by.offer}</code>.
          </>
        ) : (
          <>the guest came back on their own with {orderLink}.</>
        )
      ) : (
        'marked recovered by a member.'
      )}
    </p>
  );
}

/** The thread with the guest, oldest first: the restaurant's replies (who wrote them, how they went) and the guest's. */
function ThreadList({ thread, members }: { thread: Thread; members: Member[] }) {
  if (!thread.data.length) return <p class="muted">No message yet: the guest has heard nothing from you about this.</p>;
  const author = (user: string | null) => {
    const m = user ? members.find((x) => x.user === user) : undefined;
    return m ? memberLabel(m) : 'Your team';
  };
  return (
    <>
      {thread.total > thread.data.length && (
        <p class="muted">
          The {thread.data.length} latest of {thread.total} messages.
        </p>
      )}
      <ol class="thread" aria-label="Messages">
        {[...thread.data].reverse().map((m) => (
          <li key={m.id} class={m.direction}>
            <p class="muted">
              <strong>{m.direction === 'in' ? 'The guest' : author(m.author)}</strong> · {channelWord(m.channel)} · {formatDate(m.createdAt)}
              {m.direction === 'out' && (
                <>
                  {' '}
                  · <span class={`status ${m.status === 'sent' ? 'succeeded' : m.status}`}>{m.status === 'queued' ? 'sending' : m.status}</span>
                </>
              )}
            </p>
            <p class="body">{m.body}</p>
            {m.direction === 'out' && m.error && (
              <p class={m.status === 'failed' ? 'field-error' : 'muted'}>
                {m.status === 'failed' ? 'Not sent' : 'Not sent yet, trying again'}: {m.error}
              </p>
            )}
          </li>
        ))}
      </ol>
    </>
  );
}

/** How a reply reaches the guest: e-mail when they left an address, else SMS; either when they left both. */
function channelsOf(guest: Detail['guest']): string[] {
  return [...(guest.email ? ['email'] : []), ...(guest.phone ? ['sms'] : [])];
}

/** The reply box: start from a saved reply (or not), write, send by the guest's channel. */
function ReplyForm({ business, c, templates, onSent }: { business: string; c: Detail; templates: Template[]; onSent: (done: string) => void }) {
  const [body, setBody] = useState('');
  const [template, setTemplate] = useState('');
  const channels = channelsOf(c.guest);
  const [channel, setChannel] = useState(channels[0] ?? 'email');
  const submit = useSubmit();
  const f = submit.fields;
  if (!channels.length)
    return (
      <p class="empty" role="note">
        The guest left no e-mail address and no phone number, so there is no way to reply from here.
      </p>
    );
  const to = channel === 'email' ? c.guest.email : c.guest.phone;
  return (
    <CardForm
      class="case-card"
      label="Reply to the guest"
      onSubmit={async () => {
        const r = await submit.run(() => request(CreateCaseMessage, { business, case: c.id, input: { body, channel } }));
        if (r) {
          setBody('');
          setTemplate('');
          onSent(`Reply sent by ${channelWord(r.createCaseMessage.channel)} to ${to}.`);
        }
      }}
    >
      <h3>Reply to the guest</h3>
      {templates.length > 0 && (
        <Field label="Start from a saved reply">
          {(id) => (
            <select
              id={id}
              value={template}
              onChange={(e) => {
                const chosen = templates.find((t) => t.id === e.currentTarget.value);
                setTemplate(e.currentTarget.value);
                if (chosen) setBody(chosen.body);
              }}
            >
              <option value="">None</option>
              <Options of={templates} />
            </select>
          )}
        </Field>
      )}
      <p class="muted">
        {templates.length ? 'Change them' : 'Write the answers you give often'} under <a href="/portal/replies">Saved replies</a>.
      </p>
      <Field label="Your reply" error={f.body} hint={`From your restaurant's name, to ${to}.`}>
        {(id, d) => <textarea id={id} rows={5} aria-describedby={d} aria-invalid={!!f.body} value={body} onInput={(e) => setBody(e.currentTarget.value)} />}
      </Field>
      {channels.length > 1 && (
        <fieldset>
          <legend>Send by</legend>
          {channels.map((ch) => (
            <label class="check" key={ch}>
              <input type="radio" name="reply-channel" value={ch} checked={channel === ch} onChange={() => setChannel(ch)} /> {channelWord(ch)} (
              {ch === 'email' ? c.guest.email : c.guest.phone})
            </label>
          ))}
        </fieldset>
      )}
      <FormError error={submit.error} shown={['body']} />
      <button type="submit" disabled={submit.busy || !body.trim()}>
        {submit.busy ? 'Sending…' : 'Send reply'}
      </button>
    </CardForm>
  );
}

/** The case's offers: each code, what it gives, until when, and whether an order redeemed it. */
function OfferList({ offers, now }: { offers: OfferRow[]; now: number }) {
  if (!offers.length) return null;
  return (
    <ul class="offers" aria-label="Offers">
      {offers.map((o) => (
        <li key={o.id}>
          <code>{o.code}</code> {o.description}{' '}
          {o.redeemedAt ? (
            <span class="status case-recovered">
              Redeemed {formatDate(o.redeemedAt)}
              {o.redeemedOrder && (
                <>
                  {' '}
                  by <a href={`/portal/orders/${o.redeemedOrder}`}>the order</a>
                </>
              )}
            </span>
          ) : o.expiresAt < now ? (
            <span class="status">Expired {formatDate(o.expiresAt)}</span>
          ) : (
            <span class="muted">valid until {formatDate(o.expiresAt)}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** "Send an offer": a code unique to the business that closes the case when a later order carries it. */
function OfferForm({ business, c, onCreated }: { business: string; c: Detail; onCreated: (done: string) => void }) {
  const [description, setDescription] = useState('');
  const [days, setDays] = useState('30');
  const reachable = channelsOf(c.guest).length > 0;
  const [send, setSend] = useState(reachable);
  const submit = useSubmit();
  const f = submit.fields;
  return (
    <CardForm
      class="case-card"
      label="Send an offer"
      onSubmit={async () => {
        const r = await submit.run(() => request(CreateOffer, { business, case: c.id, input: { description, expiresInDays: Number(days) || null, send } }));
        if (r) {
          setDescription('');
          onCreated(`Offer ${r.createOffer.code} created${send ? ' and sent to the guest' : ''}.`);
        }
      }}
    >
      <h3>Send an offer</h3>
      <p class="muted">The guest gets a code; their next order carrying it (in any order field your system passes on) marks this case recovered.</p>
      <div class="row">
        <TextField
          label="What the guest gets"
          error={f.description}
          hint='For example "A free dessert on your next order".'
          value={description}
          onValue={setDescription}
        />
        <TextField
          label="Valid for (days)"
          error={f.expiresInDays}
          value={days}
          onValue={setDays}
          input={{ type: 'number', min: 1, max: 365, inputMode: 'numeric' }}
        />
      </div>
      {reachable && (
        <label class="check">
          <input type="checkbox" checked={send} onChange={(e) => setSend(e.currentTarget.checked)} /> Send it to the guest now, as a message
        </label>
      )}
      <FormError error={submit.error} shown={['description', 'expiresInDays']} />
      <button type="submit" disabled={submit.busy || !description.trim()}>
        {submit.busy ? 'Creating…' : send ? 'Send the offer' : 'Create the offer'}
      </button>
    </CardForm>
  );
}

/** Assign to a member, or to nobody: a select and a button, so moving through the list by keyboard assigns nothing. */
function AssignForm({ business, c, members, onChanged }: { business: string; c: Detail; members: Member[]; onChanged: (done: string) => void }) {
  // The assignee as far as this form knows: what it last assigned, until the case read again shows a change (its own
  // or another member's), so a pick made before that read arrives is not taken for a pick over someone else's.
  const current = c.assignee ?? '';
  const [sent, setSent] = useState<{ value: string; over: string }>();
  const known = sent && sent.over === current ? sent.value : current;
  // The member picked, shown while the assignee is still the one it was picked over; another member's change in
  // between shows instead. Derived rather than synchronised by an effect, which runs after the paint and could undo a
  // pick made meanwhile.
  const [picked, setPicked] = useState<{ value: string; over: string }>();
  const assignee = picked && picked.over === known ? picked.value : known;
  const submit = useSubmit();
  const former = c.assignee && !members.some((m) => m.id === c.assignee);
  return (
    <form
      class="actions assign"
      aria-label="Assign"
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await submit.run(() => request(UpdateCase, { business, id: c.id, input: { assignee: assignee || null } }));
        if (r) {
          setSent({ value: assignee, over: current });
          const m = members.find((x) => x.id === assignee);
          onChanged(m ? `Assigned to ${memberLabel(m)}.` : 'Unassigned.');
        }
      }}
    >
      <Field label="Assigned to" error={submit.fields.assignee}>
        {(id, d) => (
          <select id={id} aria-describedby={d} value={assignee} onChange={(e) => setPicked({ value: e.currentTarget.value, over: known })}>
            <option value="">Nobody</option>
            {former && <option value={c.assignee!}>A former member</option>}
            {members.map((m) => (
              <option key={m.id} value={m.id}>
                {memberLabel(m)}
                {m.role ? ` (${m.role})` : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" class="secondary" disabled={submit.busy || assignee === known}>
        {submit.busy ? 'Assigning…' : 'Assign'}
      </button>
      {submit.error && !submit.fields.assignee ? <Failure error={submit.error} /> : null}
    </form>
  );
}

/** Resolve an answered (or unanswered) case; reopen a closed one. */
function StatusActions({ business, c, onChanged }: { business: string; c: Detail; onChanged: (done: string) => void }) {
  const submit = useSubmit();
  const closed = CLOSED.includes(c.status);
  const set = async (status: string, done: string) => {
    if (await submit.run(() => request(UpdateCase, { business, id: c.id, input: { status } }))) onChanged(done);
  };
  return (
    <div class="actions">
      {closed ? (
        <button type="button" class="secondary" disabled={submit.busy} onClick={() => set(c.firstReplyAt ? 'replied' : 'open', 'Reopened.')}>
          Reopen
        </button>
      ) : (
        <button type="button" disabled={submit.busy} onClick={() => set('resolved', 'Resolved.')}>
          Resolve
        </button>
      )}
      {submit.error ? <Failure error={submit.error} /> : null}
    </div>
  );
}

/** One case: what the guest said and ordered, who they are, who handles it; assign, resolve, reopen. */
export function CaseDetail({ session, params }: ScreenProps) {
  const business = session.business;
  const id = params[0];
  const state = useLoad(() => request(CaseItem, { business, id }), `${business}/${id}`);
  useLiveEvents(business, CASE_LIVE_TYPES, state.reload);
  const members = useMembers(session);
  const now = useNow();
  const [done, setDone] = useState<string>();
  const mayChange = may(session, 'cases:write');
  const changed = (text: string) => {
    setDone(text);
    state.reload();
  };
  return (
    <>
      <p>
        <a href="/portal/cases">← Inbox</a>
      </p>
      <Loaded state={state} what="the case">
        {({ case: c, caseMessages: thread, offers, replyTemplates }) => {
          return (
            <>
              <h1 tabIndex={-1}>
                {guestLabel(c.guest)}: {c.reason}
              </h1>
              <p class="badges">
                <Severity severity={c.severity} /> <CaseStatus status={c.status} /> <span class="muted">opened {formatAge(c.openedAt, now)} ago</span>
              </p>
              <Recovery business={business} session={session} c={c} offers={offers.data} />
              <p class="ok" role="status">
                {done ?? ''}
              </p>
              <dl class="facts">
                <dt>Why</dt>
                <dd>{c.reason}</dd>
                <dt>Opened</dt>
                <dd>{formatDate(c.openedAt)}</dd>
                <dt>First reply</dt>
                <dd>{c.firstReplyAt ? formatDate(c.firstReplyAt) : 'Not yet'}</dd>
                {c.resolvedAt && (
                  <>
                    <dt>Resolved</dt>
                    <dd>{formatDate(c.resolvedAt)}</dd>
                  </>
                )}
                <dt>Location</dt>
                <dd>{c.location?.name ?? '—'}</dd>
                <dt>Guest</dt>
                <dd>
                  {c.guest.name ?? 'Name not given'}
                  {c.guest.email && (
                    <>
                      {' '}
                      · <a href={`mailto:${c.guest.email}`}>{c.guest.email}</a>
                    </>
                  )}
                  {c.guest.phone && (
                    <>
                      {' '}
                      · <a href={`tel:${c.guest.phone}`}>{c.guest.phone}</a>
                    </>
                  )}
                  {!c.guest.email && !c.guest.phone && <span class="muted"> · no contact given</span>}
                </dd>
                {!mayChange && (
                  <>
                    <dt>Assigned to</dt>
                    <dd>{c.assignee ? assigneeName(c.assignee, members.data) : 'Nobody'}</dd>
                  </>
                )}
              </dl>
              {!mayChange && <ReadOnlyNote scope="cases:write">assign, answer and close cases. You can follow this one here.</ReadOnlyNote>}
              {mayChange && (
                <section class="card case-card" aria-labelledby="handle">
                  <h2 id="handle">Handle it</h2>
                  {/* Drawn once the members are read: with none yet, the assignee would read as a former member. */}
                  {members.data ? (
                    <AssignForm business={business} c={c} members={members.data} onChanged={changed} />
                  ) : members.error ? (
                    <Failure error={members.error} retry={members.reload} />
                  ) : (
                    <p class="muted">Reading the team…</p>
                  )}
                  <StatusActions business={business} c={c} onChanged={changed} />
                </section>
              )}
              <h2>What the guest answered</h2>
              <p class="muted">
                {c.submission.survey?.name ?? 'Survey deleted'} · {formatDate(c.submission.completedAt ?? c.submission.createdAt)}
                {c.submission.survey && (
                  <>
                    {' '}
                    · <a href={`/portal/feedback/${c.submission.survey.id}/${c.submission.id}`}>Open the feedback</a>
                  </>
                )}
              </p>
              <AnswerList steps={c.submission.survey?.steps ?? []} answers={c.submission.answers} dishes={c.order?.items} analysis={c.submission.analysis} />
              <h2>The order</h2>
              {c.order ? (
                <>
                  <p>
                    <a href={`/portal/orders/${c.order.id}`}>Order {c.order.externalOrderId}</a> · {formatMoney(c.order.total, c.order.currency)} ·{' '}
                    {c.order.status}
                    {c.order.channel ? ` · ${c.order.channel}` : ''} · {formatDate(c.order.createdAt)}
                  </p>
                  <OrderLines items={c.order.items} currency={c.order.currency} />
                </>
              ) : (
                <p class="muted">The answer is not linked to an order.</p>
              )}
              <section aria-labelledby="thread">
                <h2 id="thread">Conversation</h2>
                <ThreadList thread={thread} members={members.data ?? []} />
                {offers.data.length > 0 && <h3>Offers</h3>}
                <OfferList offers={offers.data} now={now} />
                {mayChange && <ReplyForm business={business} c={c} templates={replyTemplates.data} onSent={changed} />}
                {mayChange && c.status !== 'recovered' && <OfferForm business={business} c={c} onCreated={changed} />}
              </section>
            </>
          );
        }}
      </Loaded>
    </>
  );
}
