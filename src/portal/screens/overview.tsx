import type { ComponentChildren } from 'preact';
import { lazy, Suspense } from 'preact/compat';
import type { ScreenProps } from '../screen';
import { may } from '../roles';
import { graphql, request, type ResultOf } from '../graphql';
import { navigate, withQuery } from '../router';
import {
  Empty,
  Failure,
  Loaded,
  Table,
  dayOf,
  download,
  formatCount,
  formatDate,
  formatDay,
  formatMinutes,
  formatMoney,
  plural,
  useLoad,
  useSubmit,
  zoneName,
} from '../ui';
import { csvText } from '../../shared/csv';
import { MIN_SAMPLE } from '../../shared/sample';
import { DAY, percent, rangeOf, ReportFilters, Sampled } from '../figures';
import { useLiveEvents } from '../live';
import type { Series } from '../charts/line-chart';

/** uPlot and the chart code load after the figures: a manager reads the numbers while the charts arrive. */
const LineChart = lazy(() => import('../charts/line-chart'));

/**
 * Everything the overview shows, in one request: the figures of the range and of the period just before it, the
 * series to chart, the splits by location and channel, and the dishes: those ranked (MIN_SAMPLE ratings or more) and
 * every one rated, to count those left out.
 */
const OverviewData = graphql(`
  query Overview($business: ID!, $from: Timestamp!, $to: Timestamp!, $previousFrom: Timestamp!, $location: ID, $interval: AnalyticsInterval!, $minSample: Int!) {
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
    dishes: analyticsMenuItems(business: $business, from: $from, to: $to, source: direct, minCount: $minSample) { menuItem name count mean }
    everyDish: analyticsMenuItems(business: $business, from: $from, to: $to, source: direct, minCount: 1, sort: count) { menuItem }
  }
`);
type Data = ResultOf<typeof OverviewData>;

/** New feedback or orders change the figures: they are read again. */
const LIVE_TYPES = ['submission.created', 'submission.updated', 'submission.completed', 'submission.deleted', 'order.created'];

const fixed = (x: number | null | undefined, digits = 1) => (x == null ? '—' : x.toFixed(digits));

/**
 * "+4 pts", "−0.2": the change since the previous period, in words a screen reader says well too; not drawn from a
 * previous period of fewer than MIN_SAMPLE ratings (`beforeCount`), whose figure says too little.
 */
function Change({
  now,
  before,
  beforeCount,
  unit = '',
  digits = 1,
  scale = 1,
}: {
  now?: number | null;
  before?: number | null;
  beforeCount?: number;
  unit?: string;
  digits?: number;
  scale?: number;
}) {
  if (now == null || before == null) return <span class="change muted">no earlier figure</span>;
  if (beforeCount != null && beforeCount < MIN_SAMPLE) return <span class="change muted">too few before to compare</span>;
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
    () =>
      request(OverviewData, {
        business,
        from: range.start,
        to: range.end,
        previousFrom: range.previousStart,
        location,
        interval: range.interval,
        minSample: MIN_SAMPLE,
      }),
    `${business}/${query}`,
  );
  useLiveEvents(business, LIVE_TYPES, state.reload);
  const setQuery = (changes: Record<string, string>) => navigate(withQuery(query, changes), { replace: true });
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <ReportFilters range={range} location={location} locations={state.data?.locations.data} setQuery={setQuery} />
      {may(session, 'cases:read') && <UnhappyGuests business={business} location={location} range={range} />}
      <SendingToday business={business} />
      <Loaded state={state} what="the figures">
        {(data) => <Figures data={data} range={range} business={business} location={location} cases={session.scopes.includes('cases:read')} />}
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
        Every message counts: feedback requests and reminders, alerts, replies and offers, invitations; at most {formatCount(first.perGuest)} a day to one guest
        on each channel. A reply past the budget is refused; an automated message waits for the reset, at {formatDate(first.resetsAt)}.
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
      opened replied medianFirstReplyMinutes recovered recoveryRate recoveredRevenue { currency amount }
    }
  }
`);
const CASE_TYPES = ['case.opened', 'case.updated', 'case.recovered'];

/**
 * The Inbox at a glance: cases still open now (and how many nobody has answered), and for the cases opened in the
 * range, the median time to the first reply, the share of guests who came back and what their orders brought back
 * (per currency). Read again as cases change.
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
            <dd>
              <strong>{formatCount(data.waiting.total)}</strong>{' '}
              {data.unanswered.total ? `${formatCount(data.unanswered.total)} not yet answered` : 'every one answered'}
            </dd>
          </div>
          <div>
            <dt>First reply (median)</dt>
            <dd>
              <strong>{recovery?.medianFirstReplyMinutes == null ? '—' : formatMinutes(recovery.medianFirstReplyMinutes)}</strong>{' '}
              {recovery?.opened
                ? `${formatCount(recovery.replied)} of ${formatCount(recovery.opened)} answered, of the cases opened in these dates`
                : 'no case opened in these dates'}
            </dd>
          </div>
          <div>
            <dt>Recovery rate</dt>
            <dd>
              {recovery?.opened ? (
                <Sampled count={recovery.opened} noun="case" soFar={`${formatCount(recovery.recovered)} of ${plural(recovery.opened, 'guest')} came back`}>
                  <strong>{percent(recovery.recoveryRate)}</strong> {formatCount(recovery.recovered)} of {plural(recovery.opened, 'guest')} came back
                </Sampled>
              ) : (
                <>
                  <strong>—</strong> no case opened in these dates
                </>
              )}
            </dd>
          </div>
          <div>
            <dt>Recovered revenue</dt>
            <dd data-testid="recovered-revenue">
              {recovery?.recoveredRevenue.length ? (
                <>
                  <strong>{recovery.recoveredRevenue.map((m) => formatMoney(m.amount, m.currency)).join(' + ')}</strong> from the orders of the guests who came
                  back
                </>
              ) : (
                <>
                  <strong>—</strong> no guest came back with an order yet
                </>
              )}
            </dd>
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
    <Table columns={head}>
      {rows.map((row, r) => (
        <tr key={String(row[0])} class={muted?.[r] ? 'muted' : undefined}>
          {row.map((cell, i) => (
            <td key={i}>{cell}</td>
          ))}
        </tr>
      ))}
    </Table>
  );
}

/** A card of the ratings and CSAT by `head` (a location, a server, a channel): a row a `name`; `children` after. */
function CsatSplit(props: {
  id: string;
  title: string;
  head: string;
  rows: { name: string; count: number; csat?: number | null; insufficient: boolean }[];
  children?: ComponentChildren;
}) {
  return (
    <section class="card split" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <Split
        head={[props.head, 'Ratings', 'CSAT']}
        rows={props.rows.map((r) => [r.name, r.count, r.insufficient ? 'not enough answers' : percent(r.csat)])}
        muted={props.rows.map((r) => r.insufficient)}
      />
      {props.children}
    </section>
  );
}

function Figures({
  data,
  range,
  business,
  location,
  cases,
}: {
  data: Data;
  range: ReturnType<typeof rangeOf>;
  business: string;
  location?: string;
  cases: boolean;
}) {
  const overall = data.overall[0];
  const nps = data.nps[0];
  const rate = data.rate[0];
  const previousRate = data.previousRate[0];
  const metricName = new Map(data.metrics.data.map((m) => [m.id, m]));
  const locationName = new Map(data.locations.data.map((l) => [l.id, l.name]));
  if (!overall?.count && !nps?.count && !rate?.orders) {
    return (
      <Empty>
        <p>
          No feedback or orders between {formatDay(range.start)} and {formatDay(range.end - DAY)}.
        </p>
        <p>
          Share a survey's link or QR code (under <a href="/portal/surveys">Surveys</a>), or connect your ordering system under{' '}
          <a href="/portal/integrations">Integrations</a>: the figures appear here as guests answer.
        </p>
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
    values: at(
      data.metricSeries.filter((r) => r.metric === m.metric),
      (r: { mean: number | null }) => r.mean,
    ),
  }));
  const axis = { periods, from: range.start, to: range.end, interval: range.interval };
  const tiles = (
    <dl class="tiles">
      <div>
        <dt>Satisfied guests (CSAT)</dt>
        <dd>
          <Sampled count={overall?.count ?? 0} noun="rating" soFar={percent(overall?.csat)}>
            <strong>{percent(overall?.csat)}</strong> of {plural(overall?.count ?? 0, 'rating')}{' '}
            <Change now={overall?.csat} before={overall?.previous?.csat} beforeCount={overall?.previous?.count} unit=" pts" digits={0} scale={100} />
          </Sampled>
        </dd>
      </div>
      <div>
        <dt>Net Promoter Score</dt>
        <dd>
          <Sampled count={nps?.count ?? 0} noun="answer" soFar={nps?.score == null ? '—' : Math.round(nps.score)}>
            <strong>{nps?.score == null ? '—' : Math.round(nps.score)}</strong> from {plural(nps?.count ?? 0, 'answer')}{' '}
            <Change now={nps?.score} before={nps?.previous?.score} beforeCount={nps?.previous?.count} digits={0} />
          </Sampled>
        </dd>
      </div>
      <div>
        <dt>Response rate</dt>
        <dd>
          <Sampled count={rate?.orders ?? 0} noun="order" soFar={`${percent(rate?.rate)} got feedback`}>
            <strong>{percent(rate?.rate)}</strong> of {plural(rate?.orders ?? 0, 'order')} got feedback{' '}
            <Change now={rate?.rate} before={previousRate?.rate} beforeCount={previousRate?.orders} unit=" pts" digits={0} scale={100} />
          </Sampled>
        </dd>
      </div>
      {data.perMetric.map((m) => {
        const metric = metricName.get(m.metric!);
        return (
          <div key={m.metric}>
            <dt>{metric?.name ?? m.metric}</dt>
            <dd>
              <Sampled count={m.count} noun="rating" soFar={`${fixed(m.mean)}${metric ? ` / ${metric.scale.max}` : ''}`}>
                <strong>{fixed(m.mean)}</strong>
                {metric ? ` / ${metric.scale.max}` : ''} from {plural(m.count, 'rating')}{' '}
                <Change now={m.mean} before={m.previous?.mean} beforeCount={m.previous?.count} />
              </Sampled>
            </dd>
          </div>
        );
      })}
    </dl>
  );
  return (
    <>
      <h2 class="sr-only">Figures</h2>
      <OverviewCsv
        business={business}
        location={location}
        range={range}
        cases={cases}
        metrics={data.perMetric.flatMap((m) => metricName.get(m.metric!) ?? [])}
      />
      {tiles}
      <Suspense
        fallback={
          <p class="muted" role="status">
            Drawing the charts…
          </p>
        }
      >
        <div class="charts">
          <LineChart {...axis} title="Score per metric" series={metricSeries} format={(v) => v.toFixed(2)} empty="No metric ratings in these dates." />
          <LineChart
            {...axis}
            title="Net Promoter Score"
            series={[{ label: 'NPS', values: at(data.npsSeries, (r: { score: number | null }) => r.score) }]}
            format={(v) => v.toFixed(0)}
            yRange={[-100, 100]}
            empty="No answers to NPS questions in these dates."
          />
          <LineChart
            {...axis}
            title="Response rate"
            series={[{ label: 'Orders with feedback', values: at(data.rateSeries, (r: { rate: number | null }) => (r.rate == null ? null : r.rate * 100)) }]}
            format={(v) => `${v.toFixed(0)}%`}
            yRange={[0, 100]}
            empty="No orders in these dates: connect your ordering system under Integrations."
          />
        </div>
      </Suspense>
      <Dishes data={data} location={location} />
      <div class="row">
        <CsatSplit
          id="by-location"
          title="By location"
          head="Location"
          rows={data.byLocation.map((r) => ({ ...r, name: r.location ? (locationName.get(r.location) ?? r.location) : 'No location' }))}
        />
        <CsatSplit id="by-staff" title="By server" head="Server" rows={data.byStaff.map((r) => ({ ...r, name: r.staff ?? 'Not recorded' }))} />
        <CsatSplit
          id="by-channel"
          title="By channel"
          head="Channel"
          rows={data.byChannel.map((r) => ({ ...r, name: r.channel ?? 'Not recorded', insufficient: r.count < MIN_SAMPLE }))}
        >
          <h3>Orders by ordering channel</h3>
          <Split
            head={['Channel', 'Orders', 'With feedback']}
            rows={data.rateByChannel.map((r) => [r.channel ?? 'Unknown', r.orders, r.orders < MIN_SAMPLE ? 'not enough orders' : percent(r.rate)])}
            muted={data.rateByChannel.map((r) => r.orders < MIN_SAMPLE)}
          />
        </CsatSplit>
      </div>
    </>
  );
}

/** How many dishes each list shows at most. */
const DISHES_SHOWN = 3;

/**
 * The best and the lowest rated dishes of the range, by the guests' own ratings (a survey's dishes step): the API
 * ranks them by a mean weighed toward that of every dish and leaves out those under MIN_SAMPLE ratings, which are
 * counted here so nobody wonders where a dish went. The dish figures are not split by location.
 */
function Dishes({ data, location }: { data: Data; location?: string }) {
  const ranked = data.dishes;
  const waiting = data.everyDish.length - ranked.length;
  const bestShown = Math.min(DISHES_SHOWN, Math.ceil(ranked.length / 2));
  const best = ranked.slice(0, bestShown);
  const lowest = ranked.slice(bestShown).slice(-DISHES_SHOWN).reverse();
  const list = (caption: string, rows: typeof ranked) => (
    <Table caption={caption} columns={['Dish', 'Average', 'Ratings']}>
      {rows.map((d) => (
        <tr key={d.menuItem}>
          <td>{d.name ?? 'A deleted dish'}</td>
          <td class="number">{d.mean.toFixed(1)} of 5</td>
          <td class="number">{formatCount(d.count)}</td>
        </tr>
      ))}
    </Table>
  );
  return (
    <section class="card dishes" aria-labelledby="dishes" data-testid="dishes">
      <h2 id="dishes">Dishes</h2>
      {!data.everyDish.length ? (
        <p class="muted">No dish rated by guests in these dates. A survey's dishes step asks each guest to rate the dishes of their order.</p>
      ) : (
        <>
          {best.length > 0 && (
            <div class="row">
              <div>
                <h3>Best rated</h3>
                {list('Best rated dishes', best)}
              </div>
              {lowest.length > 0 && (
                <div>
                  <h3>Lowest rated</h3>
                  {list('Lowest rated dishes', lowest)}
                </div>
              )}
            </div>
          )}
          {waiting > 0 && (
            <p data-testid="dishes-waiting">
              Dishes with fewer than {MIN_SAMPLE} ratings are not ranked yet: {plural(waiting, 'dish', 'dishes')}.
            </p>
          )}
        </>
      )}
      {location && <p class="muted">Dishes of every location: their ratings are not split by location yet.</p>}
    </section>
  );
}

const OverviewCsvData = graphql(`
  query OverviewCsv($business: ID!, $from: Timestamp!, $to: Timestamp!, $location: ID, $interval: AnalyticsInterval!, $cases: Boolean!) {
    overall: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: $interval) { period count csat }
    perMetric: analyticsMetrics(business: $business, from: $from, to: $to, location: $location, interval: $interval, groupBy: [metric]) { metric period count mean }
    nps: analyticsNps(business: $business, from: $from, to: $to, location: $location, interval: $interval) { period count score }
    rate: analyticsResponseRate(business: $business, from: $from, to: $to, location: $location, interval: $interval) { period orders answered rate }
    recovery: analyticsRecovery(business: $business, from: $from, to: $to, location: $location, interval: $interval) @include(if: $cases) {
      period opened recovered recoveredRevenue { currency amount }
    }
  }
`);
type CsvData = ResultOf<typeof OverviewCsvData>;
type CsvMetric = Data['metrics']['data'][number];

/** A number for a spreadsheet: a dot for decimals, at most `digits` of them, nothing for no figure. */
const cell = (x: number | null | undefined, digits = 0) => (x == null ? '' : String(Math.round(x * 10 ** digits) / 10 ** digits));
const PERIOD_HEADS = { day: 'Day', week: 'Week from', month: 'Month from' } as const;

/**
 * The Overview's figures as a spreadsheet: a line per day (week, month) of the range as the charts show it, then its
 * total; a named column per figure and per metric, each beside the count it rests on, money a column per currency.
 */
function overviewCsv(series: CsvData, total: CsvData, metrics: CsvMetric[], interval: keyof typeof PERIOD_HEADS): string {
  const currencies = [...new Set([...(series.recovery ?? []), ...(total.recovery ?? [])].flatMap((r) => r.recoveredRevenue.map((m) => m.currency)))].sort();
  const head = [
    `${PERIOD_HEADS[interval]} (${zoneName()})`,
    'Ratings',
    'CSAT (%)',
    ...metrics.flatMap((m) => [`${m.name} mean (${m.scale.min} to ${m.scale.max})`, `${m.name} ratings`]),
    'NPS',
    'NPS answers',
    'Orders',
    'Orders with feedback',
    'Response rate (%)',
    ...(series.recovery ? ['Cases opened', 'Guests who came back', 'Recovery rate (%)', ...currencies.map((c) => `Recovered revenue (${c})`)] : []),
  ];
  const line = (d: CsvData, period: number | null, label: string) => {
    const at = <T extends { period: number }>(rows: readonly T[] | null | undefined) => rows?.find((r) => period == null || r.period === period);
    const overall = at(d.overall);
    const nps = at(d.nps);
    const rate = at(d.rate);
    const recovery = at(d.recovery);
    return [
      label,
      cell(overall?.count ?? 0),
      cell(overall?.csat == null ? null : overall.csat * 100, 1),
      ...metrics.flatMap((m) => {
        const r = d.perMetric.find((x) => x.metric === m.id && (period == null || x.period === period));
        return [cell(r?.mean, 2), cell(r?.count ?? 0)];
      }),
      cell(nps?.score, 1),
      cell(nps?.count ?? 0),
      cell(rate?.orders ?? 0),
      cell(rate?.answered ?? 0),
      cell(rate?.rate == null ? null : rate.rate * 100, 1),
      ...(d.recovery
        ? [
            cell(recovery?.opened ?? 0),
            cell(recovery?.recovered ?? 0),
            cell(recovery?.opened ? (recovery.recovered / recovery.opened) * 100 : null, 1),
            ...currencies.map((c) => cell(recovery?.recoveredRevenue.find((m) => m.currency === c)?.amount ?? 0, 6)),
          ]
        : []),
    ];
  };
  const periods = [...new Set([series.overall, series.perMetric, series.nps, series.rate, series.recovery ?? []].flat().map((r) => r.period))].sort(
    (a, b) => a - b,
  );
  return csvText([head, ...periods.map((p) => line(series, p, dayOf(p))), line(total, null, 'Total')]);
}

/** "Download CSV": what the Overview shows, read again at the press for the range, location and buckets chosen. */
function OverviewCsv({
  business,
  location,
  range,
  cases,
  metrics,
}: {
  business: string;
  location?: string;
  range: ReturnType<typeof rangeOf>;
  cases: boolean;
  metrics: CsvMetric[];
}) {
  const exporting = useSubmit();
  const save = () =>
    exporting.run(async () => {
      const ask = (interval: 'day' | 'week' | 'month' | 'total') =>
        request(OverviewCsvData, { business, from: range.start, to: range.end, location, interval, cases });
      const [series, total] = await Promise.all([ask(range.interval), ask('total')]);
      download(`overview-${range.from}-to-${range.to}.csv`, new Blob([overviewCsv(series, total, metrics, range.interval)], { type: 'text/csv' }));
    });
  return (
    <p class="export">
      <button type="button" class="secondary" disabled={exporting.busy} onClick={save}>
        {exporting.busy ? 'Preparing the CSV…' : 'Download CSV'}
      </button>
      {exporting.error ? <Failure error={exporting.error} /> : null}
    </p>
  );
}
