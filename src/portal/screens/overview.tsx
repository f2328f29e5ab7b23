import { lazy, Suspense } from 'preact/compat';
import type { ScreenProps } from '../screen';
import { may } from '../roles';
import { graphql, request, type ResultOf } from '../graphql';
import { navigate, withQuery } from '../router';
import { DateInput, Empty, Field, Loaded, dayStart, dayOf, formatCount, formatDate, formatDay, formatMinutes, plural, useLoad } from '../ui';
import { useLiveEvents } from '../live';
import type { Series } from '../charts/line-chart';

/** uPlot and the chart code load after the figures: a manager reads the numbers while the charts arrive. */
const LineChart = lazy(() => import('../charts/line-chart'));

/**
 * Everything the overview shows, in one request: the figures of the range and of the period just before it, the
 * series to chart, and the splits by location and channel.
 */
const OverviewData = graphql(`
  query Overview($business: ID!, $from: Timestamp!, $to: Timestamp!, $previousFrom: Timestamp!, $location: ID, $interval: AnalyticsInterval!) {
    metrics(business: $business, pageSize: 100, orderBy: [{ field: createdAt, order: asc }]) { data { id name scale { min max } } }
    locations(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
    overall: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: total, compare: previous) {
      count csat previous { count csat }
    }
    perMetric: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: total, groupBy: [metric], compare: previous) {
      metric count mean csat previous { count mean }
    }
    metricSeries: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: $interval, groupBy: [metric]) {
      metric period mean count
    }
    nps: analyticsNps(business: $business, from: $from, to: $to, location: $location, interval: total, compare: previous) {
      count score promoters passives detractors previous { count score }
    }
    npsSeries: analyticsNps(business: $business, from: $from, to: $to, location: $location, interval: $interval) { period score count }
    rate: analyticsResponseRate(business: $business, from: $from, to: $to, location: $location, interval: total) { orders answered rate }
    previousRate: analyticsResponseRate(business: $business, from: $previousFrom, to: $from, location: $location, interval: total) { orders answered rate }
    rateSeries: analyticsResponseRate(business: $business, from: $from, to: $to, location: $location, interval: $interval) { period orders answered rate }
    byLocation: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: total, groupBy: [location]) { location count csat insufficient }
    byStaff: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: total, groupBy: [staff]) { staff count csat insufficient rank }
    byChannel: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: total, groupBy: [channel]) { channel count csat }
    rateByChannel: analyticsResponseRate(business: $business, from: $from, to: $to, location: $location, interval: total, groupBy: [channel]) { channel orders answered rate }
  }
`);
type Data = ResultOf<typeof OverviewData>;

const DAY = 86_400_000;
/** New feedback or orders change the figures: they are read again. */
const LIVE_TYPES = ['submission.created', 'submission.updated', 'submission.completed', 'submission.deleted', 'order.created'];

/** The range the URL asks for (yyyy-mm-dd, both days included), else the last 28 days up to today. */
function rangeOf(query: URLSearchParams) {
  const today = dayOf(Date.now());
  const to = query.get('to') || today;
  const from = query.get('from') || dayOf(dayStart(to) - 27 * DAY);
  const start = dayStart(from);
  const end = dayStart(to) + DAY;
  const days = Math.max(1, Math.round((end - start) / DAY));
  // Buckets a chart can show: days for two months, then weeks for a year, then months.
  const interval = days <= 62 ? 'day' : days <= 366 ? 'week' : 'month';
  return { from, to, start, end, previousStart: start - (end - start), interval } as const;
}

const percent = (x: number | null | undefined) => (x == null ? '—' : `${Math.round(x * 100)}%`);
const fixed = (x: number | null | undefined, digits = 1) => (x == null ? '—' : x.toFixed(digits));

/** "+4 pts", "−0.2": the change since the previous period, in words a screen reader says well too. */
function Change({ now, before, unit = '', digits = 1, scale = 1 }: { now?: number | null; before?: number | null; unit?: string; digits?: number; scale?: number }) {
  if (now == null || before == null) return <span class="change muted">no earlier figure</span>;
  const d = (now - before) * scale;
  const text = `${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d).toFixed(digits)}${unit}`;
  return <span class={`change ${d > 0 ? 'up' : d < 0 ? 'down' : ''}`}>{text} vs previous period</span>;
}

/** The analytics at a glance: figures with their change, charts over time, and the splits by location and channel. */
export default function Overview({ session, query }: ScreenProps) {
  const business = session.business;
  const range = rangeOf(query);
  const location = query.get('location') || undefined;
  const state = useLoad(
    () => request(OverviewData, { business, from: range.start, to: range.end, previousFrom: range.previousStart, location, interval: range.interval }),
    `${business}/${query}`,
  );
  useLiveEvents(business, LIVE_TYPES, state.reload);
  const setQuery = (changes: Record<string, string>) => navigate(withQuery(query, changes), { replace: true });
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="From">{(id) => <DateInput id={id} value={range.from} onChange={(day) => setQuery({ from: day })} />}</Field>
        <Field label="To">{(id) => <DateInput id={id} value={range.to} onChange={(day) => setQuery({ to: day })} />}</Field>
        <Field label="Location">
          {(id) => (
            <select id={id} value={location ?? ''} onChange={(e) => setQuery({ location: e.currentTarget.value })}>
              <option value="">All locations</option>
              {state.data?.locations.data.map((l) => <option key={l.id} value={l.id}>{l.name}</option>)}
            </select>
          )}
        </Field>
      </form>
      {may(session, 'cases:read') && <UnhappyGuests business={business} location={location} range={range} />}
      <SendingToday business={business} />
      <Loaded state={state} what="the figures">
        {(data) => <Figures data={data} range={range} />}
      </Loaded>
    </>
  );
}

const SendingData = graphql(`
  query SendingToday($business: ID!) {
    business(id: $business) { id sendingBudget { channel limit used remaining held perGuest resetsAt growsAt } }
  }
`);
const CHANNEL_NAMES: Record<string, string> = { email: 'E-mail', sms: 'SMS' };

/**
 * What the business may still send today on each channel, and what waits for the budget to reset: read again when a
 * budget holds its first message of the day (the event sendingbudget.reached).
 */
function SendingToday({ business }: { business: string }) {
  const state = useLoad(() => request(SendingData, { business }), business);
  useLiveEvents(business, ['sendingbudget.reached'], state.reload);
  const budgets = state.data?.business.sendingBudget;
  if (!budgets) return null;
  const spent = budgets.some((b) => b.remaining === 0);
  const first = budgets[0];
  return (
    <section class={`sending${spent ? ' spent' : ''}`} aria-labelledby="sending-today" data-testid="sending-today">
      <h2 id="sending-today">Messages today</h2>
      <dl class="sending-figures">
        {budgets.map((b) => (
          <div key={b.channel}>
            <dt>{CHANNEL_NAMES[b.channel] ?? b.channel}</dt>
            <dd>
              <strong>{formatCount(b.remaining)} left</strong> {formatCount(b.used)} of {formatCount(b.limit)} sent
              {b.held ? `; ${plural(b.held, 'automated message')} held until ${formatDate(b.resetsAt)}` : ''}
            </dd>
          </div>
        ))}
      </dl>
      <p class="muted">
        Every message counts: feedback requests and reminders, alerts, replies and offers, invitations; at most {formatCount(first.perGuest)} a day to one guest on
        each channel. A reply past the budget is refused; an automated message waits for the reset, at {formatDate(first.resetsAt)}.
        {first.growsAt ? ` A new business's budget: it grows on ${formatDay(first.growsAt)}.` : ''}
      </p>
    </section>
  );
}

const UnhappyData = graphql(`
  query UnhappyGuests($business: ID!, $where: CaseWhere!, $unanswered: CaseWhere!, $from: Timestamp!, $to: Timestamp!, $location: ID) {
    waiting: cases(business: $business, where: $where, pageSize: 1) { total }
    unanswered: cases(business: $business, where: $unanswered, pageSize: 1) { total }
    recovery: analyticsRecovery(business: $business, from: $from, to: $to, location: $location, interval: total) {
      opened replied medianFirstReplyMinutes recovered recoveryRate
    }
  }
`);
const CASE_TYPES = ['case.opened', 'case.updated', 'case.recovered'];

/**
 * The Inbox at a glance: cases still open now (and how many nobody has answered), and for the cases opened in the
 * range, the median time to the first reply and the share of guests who came back. Read again as cases change.
 */
function UnhappyGuests({ business, location, range }: { business: string; location?: string; range: ReturnType<typeof rangeOf> }) {
  const at = location ? { location: { eq: location } } : {};
  const state = useLoad(
    () =>
      request(UnhappyData, {
        business,
        where: { ...at, status: { in: ['open', 'replied'] } },
        unanswered: { ...at, status: { eq: 'open' } },
        from: range.start,
        to: range.end,
        location,
      }),
    `${business}/${location}/${range.start}/${range.end}`,
  );
  useLiveEvents(business, CASE_TYPES, state.reload);
  const data = state.data;
  const recovery = data?.recovery[0];
  return (
    <section class="unhappy" aria-labelledby="unhappy-guests" data-testid="unhappy-guests">
      <div class="unhappy-head">
        <h2 id="unhappy-guests">Unhappy guests</h2>
        <a href="/portal/cases">Open the Inbox</a>
      </div>
      {state.error ? (
        <p class="muted">The cases could not be read just now.</p>
      ) : !data ? (
        <p class="muted">Reading the cases…</p>
      ) : (
        <dl class="unhappy-figures">
          <div>
            <dt>Open cases</dt>
            <dd><strong>{formatCount(data.waiting.total)}</strong> {data.unanswered.total ? `${formatCount(data.unanswered.total)} not yet answered` : 'every one answered'}</dd>
          </div>
          <div>
            <dt>First reply (median)</dt>
            <dd>
              <strong>{recovery?.medianFirstReplyMinutes == null ? '—' : formatMinutes(recovery.medianFirstReplyMinutes)}</strong>{' '}
              {recovery?.opened ? `${formatCount(recovery.replied)} of ${formatCount(recovery.opened)} answered, of the cases opened in these dates` : 'no case opened in these dates'}
            </dd>
          </div>
          <div>
            <dt>Recovery rate</dt>
            <dd><strong>{percent(recovery?.recoveryRate)}</strong> {recovery?.opened ? `${formatCount(recovery.recovered)} of ${plural(recovery.opened, 'guest')} came back` : 'no case opened in these dates'}</dd>
          </div>
        </dl>
      )}
    </section>
  );
}

/** One split of the range's figures (by location, by channel): a row per key. */
/** `muted`: rows with too few answers to compare (the API's `insufficient`), shown greyed. */
function Split({ head, rows, muted }: { head: string[]; rows: (string | number)[][]; muted?: boolean[] }) {
  if (!rows.length) return <p class="muted">Nothing in these dates.</p>;
  return (
    <table>
      <thead><tr>{head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
      <tbody>{rows.map((row, r) => <tr key={String(row[0])} class={muted?.[r] ? 'muted' : undefined}>{row.map((cell, i) => <td key={i}>{cell}</td>)}</tr>)}</tbody>
    </table>
  );
}

function Figures({ data, range }: { data: Data; range: ReturnType<typeof rangeOf> }) {
  const overall = data.overall[0];
  const nps = data.nps[0];
  const rate = data.rate[0];
  const previousRate = data.previousRate[0];
  const metricName = new Map(data.metrics.data.map((m) => [m.id, m]));
  const locationName = new Map(data.locations.data.map((l) => [l.id, l.name]));
  if (!overall?.count && !nps?.count && !rate?.orders) {
    return (
      <Empty>
        <p>No feedback or orders between {formatDay(range.start)} and {formatDay(range.end - DAY)}.</p>
        <p>Share a survey's link or QR code (under <a href="/portal/surveys">Surveys</a>), or connect your ordering system under <a href="/portal/integrations">Integrations</a>: the figures appear here as guests answer.</p>
      </Empty>
    );
  }
  // One x axis for every chart: the start of each bucket in the range.
  const periods = [...new Set([...data.metricSeries, ...data.npsSeries, ...data.rateSeries].map((r) => r.period))].sort((a, b) => a - b);
  const at = (rows: { period: number }[], value: (r: never) => number | null | undefined) => {
    const byPeriod = new Map(rows.map((r) => [r.period, value(r as never) ?? null]));
    return periods.map((p) => byPeriod.get(p) ?? null);
  };
  const metricSeries: Series[] = data.perMetric.map((m) => ({
    label: metricName.get(m.metric!)?.name ?? m.metric!,
    values: at(data.metricSeries.filter((r) => r.metric === m.metric), (r: { mean: number | null }) => r.mean),
  }));
  const axis = { periods, from: range.start, to: range.end, interval: range.interval };
  const tiles = (
    <dl class="tiles">
      <div>
        <dt>Satisfied guests (CSAT)</dt>
        <dd><strong>{percent(overall?.csat)}</strong> of {plural(overall?.count ?? 0, 'rating')} <Change now={overall?.csat} before={overall?.previous?.csat} unit=" pts" digits={0} scale={100} /></dd>
      </div>
      <div>
        <dt>Net Promoter Score</dt>
        <dd><strong>{nps?.score == null ? '—' : Math.round(nps.score)}</strong> from {plural(nps?.count ?? 0, 'answer')} <Change now={nps?.score} before={nps?.previous?.score} digits={0} /></dd>
      </div>
      <div>
        <dt>Response rate</dt>
        <dd>{rate?.orders ? <><strong>{percent(rate.rate)}</strong> of {plural(rate.orders, 'order')} got feedback</> : <><strong>—</strong> no orders in these dates</>} <Change now={rate?.rate} before={previousRate?.rate} unit=" pts" digits={0} scale={100} /></dd>
      </div>
      {data.perMetric.map((m) => {
        const metric = metricName.get(m.metric!);
        return (
          <div key={m.metric}>
            <dt>{metric?.name ?? m.metric}</dt>
            <dd><strong>{fixed(m.mean)}</strong>{metric ? ` / ${metric.scale.max}` : ''} from {plural(m.count, 'rating')} <Change now={m.mean} before={m.previous?.mean} /></dd>
          </div>
        );
      })}
    </dl>
  );
  return (
    <>
      <h2 class="sr-only">Figures</h2>
      {tiles}
      <Suspense fallback={<p class="muted" role="status">Drawing the charts…</p>}>
        <div class="charts">
          <LineChart {...axis} title="Score per metric" series={metricSeries} format={(v) => v.toFixed(2)} empty="No metric ratings in these dates." />
          <LineChart {...axis} title="Net Promoter Score" series={[{ label: 'NPS', values: at(data.npsSeries, (r: { score: number | null }) => r.score) }]} format={(v) => v.toFixed(0)} yRange={[-100, 100]} empty="No answers to NPS questions in these dates." />
          <LineChart {...axis} title="Response rate" series={[{ label: 'Orders with feedback', values: at(data.rateSeries, (r: { rate: number | null }) => (r.rate == null ? null : r.rate * 100)) }]} format={(v) => `${v.toFixed(0)}%`} yRange={[0, 100]} empty="No orders in these dates: connect your ordering system under Integrations." />
        </div>
      </Suspense>
      <div class="row">
        <section class="card split" aria-labelledby="by-location">
          <h2 id="by-location">By location</h2>
          <Split
            head={['Location', 'Ratings', 'CSAT']}
            rows={data.byLocation.map((r) => [r.location ? (locationName.get(r.location) ?? r.location) : 'No location', r.count, r.insufficient ? 'not enough answers' : percent(r.csat)])}
            muted={data.byLocation.map((r) => r.insufficient)}
          />
        </section>
        <section class="card split" aria-labelledby="by-staff">
          <h2 id="by-staff">By server</h2>
          <Split
            head={['Server', 'Ratings', 'CSAT']}
            rows={data.byStaff.map((r) => [r.staff ?? 'Not recorded', r.count, r.insufficient ? 'not enough answers' : percent(r.csat)])}
            muted={data.byStaff.map((r) => r.insufficient)}
          />
        </section>
        <section class="card split" aria-labelledby="by-channel">
          <h2 id="by-channel">By channel</h2>
          <Split head={['Channel', 'Ratings', 'CSAT']} rows={data.byChannel.map((r) => [r.channel ?? 'Not recorded', r.count, percent(r.csat)])} />
          <h3>Orders by ordering channel</h3>
          <Split head={['Channel', 'Orders', 'With feedback']} rows={data.rateByChannel.map((r) => [r.channel ?? 'Unknown', r.orders, percent(r.rate)])} />
        </section>
      </div>
    </>
  );
}
