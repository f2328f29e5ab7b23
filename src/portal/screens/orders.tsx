import type { ScreenProps } from '../screen';
import { may } from '../roles';
import { graphql, request, type VariablesOf } from '../graphql';
import { Empty, Field, Loaded, formatDate, formatMoney, useLoad, Table, OrderLines } from '../ui';
import { DateFilters, Pager, datesOf, FilterSelect, NoMatch, setFilters } from '../lists';
import { useLiveEvents } from '../live';

const OrdersList = graphql(`
  query OrdersList($business: ID!, $where: OrderWhere, $page: Int!) {
    orders(business: $business, where: $where, page: $page, pageSize: 20) {
      total page hasMore
      data { id externalOrderId externalLocationId total currency status channel source createdAt customerName }
    }
  }
`);

const OrderItem = graphql(`
  query OrderItem($business: ID!, $id: ID!) {
    order(business: $business, id: $id) {
      id externalOrderId externalLocationId externalBrandId total subtotal deliveryCharge currency status channel source createdAt
      customerName customerEmail customerPhoneNumber metadata
      items { id position name itemId quantity unitPrice totalPrice itemComment }
      submissions { id status createdAt survey { id name } }
    }
  }
`);

const STATUSES = ['ACCEPTED', 'PENDING'];
const LIVE_TYPES = ['order.created', 'order.updated'];
const SOURCES = ['custom', 'api'];
const CHANNELS = ['WEBSITE', 'ANDROID', 'IOS', 'CALL-IN', 'QR', 'FOODPANDA', 'GOLOOTLO', 'OTHER'];

function whereOf(query: URLSearchParams): VariablesOf<typeof OrdersList>['where'] {
  const where: NonNullable<VariablesOf<typeof OrdersList>['where']> = {};
  for (const key of ['status', 'channel', 'source', 'externalLocationId'] as const) if (query.get(key)) where[key] = { eq: query.get(key)! };
  const dates = datesOf(query);
  if (dates) where.createdAt = dates;
  return where;
}

/** Orders received (from the order webhook or the API), filtered by what the URL says. */
export default function Orders({ session, query }: ScreenProps) {
  const page = Number(query.get('page') ?? 0) || 0;
  const state = useLoad(() => request(OrdersList, { business: session.business, where: whereOf(query), page }), `${session.business}/${query}`);
  // Orders arriving from the webhook or the API show up while the list is open.
  useLiveEvents(session.business, LIVE_TYPES, state.reload);
  return (
    <>
      <h1 tabIndex={-1}>Orders</h1>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect query={query} name="status" label="Status" choices={STATUSES} />
        <FilterSelect query={query} name="channel" label="Channel" choices={CHANNELS} />
        <FilterSelect query={query} name="source" label="Source" choices={SOURCES} />
        <Field label="Location (its id in your system)">
          {(id) => (
            <input
              id={id}
              value={query.get('externalLocationId') ?? ''}
              onChange={(e) => setFilters(query, { externalLocationId: e.currentTarget.value.trim() })}
            />
          )}
        </Field>
        <DateFilters query={query} />
      </form>
      <Loaded state={state} what="orders">
        {(r) =>
          r.orders.data.length ? (
            <>
              <Table caption="Orders" columns={['Order', 'Received', 'Total', 'Status', 'Channel', 'Location']}>
                {r.orders.data.map((o) => (
                  <tr key={o.id}>
                    <td>
                      <a href={`/portal/orders/${o.id}`}>{o.externalOrderId}</a>
                    </td>
                    <td>{formatDate(o.createdAt)}</td>
                    <td class="number">{formatMoney(o.total, o.currency)}</td>
                    <td>{o.status}</td>
                    <td>{o.channel ?? '—'}</td>
                    <td>{o.externalLocationId ?? '—'}</td>
                  </tr>
                ))}
              </Table>
              <Pager list={r.orders} query={query} />
            </>
          ) : (
            <NoMatch what="order" query={query} clear="/portal/orders">
              Connect your ordering system under <a href="/portal/integrations">Integrations</a>: its orders show here.
            </NoMatch>
          )
        }
      </Loaded>
    </>
  );
}

const OrderRequests = graphql(`
  query OrderRequests($business: ID!, $order: ID!) {
    feedbackRequests(business: $business, where: { order: { eq: $order } }, pageSize: 20) {
      data { id status reason channel error createdAt sendAt sentAt openedAt remindedAt completedAt expiresAt }
    }
  }
`);

/** A step of a feedback request and its date, as a term of the request's facts. */
function Step({ name, at }: { name: string; at: number | null | undefined }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{formatDate(at)}</dd>
    </>
  );
}

/** What the feedback flows did for the order: each request's steps, in order, with why it stopped where it did. */
function RequestHistory({ business, order }: { business: string; order: string }) {
  const state = useLoad(() => request(OrderRequests, { business, order }), `${business}/${order}`);
  return (
    <section aria-labelledby="requests">
      <h2 id="requests">Feedback request</h2>
      <Loaded state={state} what="the feedback request">
        {(data) =>
          data.feedbackRequests.data.length ? (
            <>
              {data.feedbackRequests.data.map((r) => (
                <dl class="facts" key={r.id}>
                  <dt>Status</dt>
                  <dd>
                    <span class={`status ${r.status}`}>{r.status}</span>
                    {r.reason ? ` (${r.reason.replace(/_/g, ' ')})` : ''}
                    {r.error ? `: ${r.error}` : ''}
                  </dd>
                  <Step name="Created" at={r.createdAt} />
                  {r.sentAt ? <Step name={`Sent${r.channel ? ` by ${r.channel}` : ''}`} at={r.sentAt} /> : <Step name="Due" at={r.sendAt} />}
                  {r.remindedAt && <Step name="Reminded" at={r.remindedAt} />}
                  {r.openedAt && <Step name="Opened" at={r.openedAt} />}
                  {r.completedAt && <Step name="Answered" at={r.completedAt} />}
                  <Step name="Link expires" at={r.expiresAt} />
                </dl>
              ))}
            </>
          ) : (
            <Empty>
              No feedback request for this order: no enabled <a href="/portal/flows">feedback flow</a> matched it.
            </Empty>
          )
        }
      </Loaded>
    </section>
  );
}

/** One order: its lines, the feedback linked to it, and the feedback request the flows made for it. */
export function OrderDetail({ session, params }: ScreenProps) {
  const state = useLoad(() => request(OrderItem, { business: session.business, id: params[0] }), `${session.business}/${params[0]}`);
  return (
    <>
      <p>
        <a href="/portal/orders">← Orders</a>
      </p>
      <Loaded state={state} what="the order">
        {({ order: o }) => (
          <>
            <h1 tabIndex={-1}>Order {o.externalOrderId}</h1>
            <dl class="facts">
              <dt>Received</dt>
              <dd>{formatDate(o.createdAt)}</dd>
              <dt>Total</dt>
              <dd>
                {formatMoney(o.total, o.currency)}
                {o.deliveryCharge ? ` (delivery ${formatMoney(o.deliveryCharge, o.currency)})` : ''}
              </dd>
              <dt>Status</dt>
              <dd>{o.status}</dd>
              <dt>Channel</dt>
              <dd>
                {o.channel ?? '—'} · via {o.source}
              </dd>
              <dt>Location</dt>
              <dd>{o.externalLocationId ?? '—'}</dd>
              <dt>Customer</dt>
              <dd>{[o.customerName, o.customerEmail, o.customerPhoneNumber].filter(Boolean).join(', ') || '—'}</dd>
            </dl>
            <h2>Lines</h2>
            <OrderLines items={o.items} currency={o.currency} unitPrice />
            <h2>Feedback</h2>
            {o.submissions.length ? (
              <ul>
                {o.submissions.map((s) => (
                  <li key={s.id}>
                    {s.survey ? <a href={`/portal/feedback/${s.survey.id}/${s.id}`}>{s.survey.name}</a> : '(deleted survey)'} · {s.status} ·{' '}
                    {formatDate(s.createdAt)}
                  </li>
                ))}
              </ul>
            ) : (
              <Empty>No feedback on this order yet.</Empty>
            )}
            {may(session, 'flows:read') && <RequestHistory business={session.business} order={o.id} />}
          </>
        )}
      </Loaded>
    </>
  );
}
