import { lazy, Suspense } from 'preact/compat';
import { useEffect, useRef } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { graphql, request, type ResultOf } from '../graphql';
import { navigate, withQuery } from '../router';
import { Empty, Field, Loaded, Options, Table, formatCount, formatDate, formatDay, plural, useLoad } from '../ui';
import { useLiveEvents } from '../live';
import { DAY, percent, rangeOf, ReportFilters, Sampled } from '../figures';
import { Highlighted } from '../themes';
import { MIN_SAMPLE } from '../../shared/sample';

/** uPlot loads after the figures, as on the Overview. */
const LineChart = lazy(() => import('../charts/line-chart'));

/**
 * What the guests' comments of the range speak of, in one request: each theme's answers by sentiment over the whole
 * range, per bucket (the trend) and per survey (where the Feedback list finds them), and the surveys and locations
 * to filter by.
 */
const ThemesData = graphql(`
  query ThemesScreen($business: ID!, $from: Timestamp!, $to: Timestamp!, $location: ID, $survey: ID, $interval: AnalyticsInterval!) {
    locations(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
    surveys(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
    totals: analyticsThemes(business: $business, from: $from, to: $to, location: $location, survey: $survey, interval: total) {
      theme positive neutral negative total
    }
    series: analyticsThemes(business: $business, from: $from, to: $to, location: $location, survey: $survey, interval: $interval) {
      period theme positive neutral negative total
    }
    bySurvey: analyticsThemes(business: $business, from: $from, to: $to, location: $location, survey: $survey, interval: total, groupBy: [survey]) {
      theme survey positive neutral negative total
    }
  }
`);

/** A survey's latest comments on a theme read with a sentiment, with the words that carried it: the examples. */
const ThemeComments = graphql(`
  query ThemeComments($business: ID!, $survey: ID!, $where: SubmissionWhere) {
    submissions(business: $business, survey: $survey, where: $where, pageSize: 3) {
      data { id createdAt location { name } answers { step value } analysis { step themes { theme sentiment words } } }
    }
  }
`);

/** The words guests use most for a theme, per sentiment (from the words rollup, WORDS_SHOWN of each). */
const ThemeWords = graphql(`
  query ThemeWords($business: ID!, $from: Timestamp!, $to: Timestamp!, $theme: String!, $location: ID, $survey: ID, $limit: Int!) {
    analyticsThemeWords(business: $business, from: $from, to: $to, theme: $theme, location: $location, survey: $survey, limit: $limit) { sentiment word count }
  }
`);

/** The surveys that ask for a comment (a text step), for the empty state. */
const ThemeSurveys = graphql(`
  query ThemeSurveys($business: ID!) {
    surveys(business: $business, pageSize: 20, orderBy: [{ field: createdAt, order: desc }]) { total data { id steps { id type } } }
  }
`);

/** A survey's latest completed answers of the range and which of them were read: do comments wait to be read? */
const CommentsRead = graphql(`
  query CommentsRead($business: ID!, $survey: ID!, $where: SubmissionWhere) {
    submissions(business: $business, survey: $survey, where: $where, pageSize: 20) { data { answers { step value } analysis { step } } }
  }
`);

type Data = ResultOf<typeof ThemesData>;
type Range = ReturnType<typeof rangeOf>;
type Total = Data['totals'][number];

/** New feedback changes the figures; its analysis follows within seconds (the empty state looks again meanwhile). */
const LIVE_TYPES = ['submission.created', 'submission.updated', 'submission.completed', 'submission.deleted'];
/** Comments read as having each sentiment, most telling first. */
const SHOWN_SENTIMENTS = ['negative', 'positive'] as const;
/** How many example comments of each sentiment a theme shows (ThemeComments reads as many a survey), and from how many of its surveys. */
const EXAMPLES = 3;
const EXAMPLE_SURVEYS = 2;
/** How many of the words guests use most a theme shows, per sentiment. */
const WORDS_SHOWN = 10;
/** A half of the range moving by fewer points than this reads as "about the same". */
const STEADY_POINTS = 5;

/**
 * Themes: what guests' comments speak of (food, speed, cleanliness… and the business's own), each theme's positive and
 * negative split and its trend over the range, the words and comments behind a theme, and the way to its feedback.
 */
export default function Themes({ session, query }: ScreenProps) {
  const business = session.business;
  const range = rangeOf(query);
  const location = query.get('location') || undefined;
  const survey = query.get('survey') || undefined;
  const state = useLoad(
    () => request(ThemesData, { business, from: range.start, to: range.end, location, survey, interval: range.interval }),
    `${business}/${query}`,
  );
  useLiveEvents(business, LIVE_TYPES, state.reload);
  const setQuery = (changes: Record<string, string>) => navigate(withQuery(query, changes), { replace: true });
  return (
    <>
      <h1 tabIndex={-1}>Themes</h1>
      <p>
        What guests write about, read from every comment in English, Urdu and Roman Urdu: each theme with how many comments spoke well or badly of it.{' '}
        <a href="/portal/themes/settings">Theme settings</a>: add your guests’ own words and themes, or switch themes off.
      </p>
      <ReportFilters range={range} location={location} locations={state.data?.locations.data} setQuery={setQuery}>
        <Field label="Survey">
          {(id) => (
            <select id={id} value={survey ?? ''} onChange={(e) => setQuery({ survey: e.currentTarget.value })}>
              <option value="">All surveys</option>
              <Options of={state.data?.surveys.data ?? []} />
            </select>
          )}
        </Field>
      </ReportFilters>
      <Loaded state={state} what="the themes">
        {(data) =>
          data.totals.length ? (
            <ThemeFigures business={business} data={data} range={range} query={query} location={location} survey={survey} />
          ) : (
            <NoThemes business={business} survey={survey} range={range} location={location} reload={state.reload} />
          )
        }
      </Loaded>
    </>
  );
}

/** "18 comments: 12 negative, 5 positive, 1 neutral". */
const splitText = (t: Total) =>
  [t.negative && `${formatCount(t.negative)} negative`, t.positive && `${formatCount(t.positive)} positive`, t.neutral && `${formatCount(t.neutral)} neutral`]
    .filter(Boolean)
    .join(', ');

/**
 * How the theme moved over the range: its share of negative comments in the first half of the range beside the second.
 * Not judged when either half holds fewer than MIN_SAMPLE comments.
 */
function trendOf(rows: Data['series'], range: Range): string {
  const middle = range.start + (range.end - range.start) / 2;
  const half = (first: boolean) => {
    const part = rows.filter((r) => r.period < middle === first);
    const total = part.reduce((n, r) => n + r.total, 0);
    return { total, negative: total ? part.reduce((n, r) => n + r.negative, 0) / total : 0 };
  };
  const [before, after] = [half(true), half(false)];
  if (before.total < MIN_SAMPLE || after.total < MIN_SAMPLE) return 'too few to compare';
  const points = Math.round((after.negative - before.negative) * 100);
  const shares = `${percent(before.negative)} → ${percent(after.negative)} negative`;
  if (Math.abs(points) < STEADY_POINTS) return `about the same (${shares})`;
  return points > 0 ? `more negative (${shares})` : `less negative (${shares})`;
}

/** A bar of the split, for the eye only: the text beside it says the same. */
function SplitBar({ t }: { t: Total }) {
  const width = (n: number) => ({ width: `${(n / t.total) * 100}%` });
  return (
    <span class="split-bar" aria-hidden="true">
      <span class="negative" style={width(t.negative)} />
      <span class="neutral" style={width(t.neutral)} />
      <span class="positive" style={width(t.positive)} />
    </span>
  );
}

function ThemeFigures({
  business,
  data,
  range,
  query,
  location,
  survey,
}: {
  business: string;
  data: Data;
  range: Range;
  query: URLSearchParams;
  location?: string;
  survey?: string;
}) {
  const totals = [...data.totals].sort((a, b) => b.total - a.total || a.theme.localeCompare(b.theme));
  const chosen = totals.find((t) => t.theme === query.get('theme'));
  return (
    <>
      <Table
        caption={`Themes of the comments from ${formatDay(range.start)} to ${formatDay(range.end - DAY)}`}
        columns={['Theme', 'Comments', 'Negative and positive', 'Trend']}
      >
        {totals.map((t) => (
          <tr key={t.theme} class={t.theme === chosen?.theme ? 'chosen' : undefined}>
            <th scope="row">
              <a href={withQuery(query, { theme: t.theme })} aria-current={t.theme === chosen?.theme ? 'true' : undefined}>
                {t.theme}
              </a>
            </th>
            <td class="number">{formatCount(t.total)}</td>
            <td>
              <Sampled count={t.total} noun="comment" soFar={splitText(t)}>
                <SplitBar t={t} />
                {percent(t.negative / t.total)} negative, {percent(t.positive / t.total)} positive
              </Sampled>
            </td>
            <td>
              {trendOf(
                data.series.filter((r) => r.theme === t.theme),
                range,
              )}
            </td>
          </tr>
        ))}
      </Table>
      <p class="muted">Trend: the share of negative comments in the first half of the dates, then in the second, judged from {MIN_SAMPLE} comments in each.</p>
      {chosen ? (
        <ThemeDetail business={business} data={data} total={chosen} range={range} query={query} location={location} survey={survey} />
      ) : (
        <p class="muted">Choose a theme to see its trend, the comments behind it and the way to its feedback.</p>
      )}
    </>
  );
}

/** The feedback of one survey for the range and location, read as `sentiment` on `theme`: the Feedback list's address. */
const feedbackHref = (survey: string, theme: string, sentiment: string, range: Range, location?: string) => {
  const q = new URLSearchParams({ survey, from: range.from, to: range.to });
  if (location) q.set('location', location);
  q.set('theme', theme);
  q.set('sentiment', sentiment);
  return `/portal/feedback?${q}`;
};

/** One theme: its counts over the range (chart and table), comments of each sentiment with its words marked, links to them all. */
function ThemeDetail(props: { business: string; data: Data; total: Total; range: Range; query: URLSearchParams; location?: string; survey?: string }) {
  const { business, data, total, range, query, location, survey } = props;
  const theme = total.theme;
  const words = useLoad(
    () => request(ThemeWords, { business, from: range.start, to: range.end, theme, location, survey, limit: WORDS_SHOWN }),
    `${business}/${theme}/${range.start}/${range.end}/${location}/${survey}`,
  );
  const rows = data.series.filter((r) => r.theme === theme);
  const periods = rows.map((r) => r.period);
  const surveys = data.bySurvey.filter((r) => r.theme === theme && r.survey).sort((a, b) => b.total - a.total);
  const surveyName = new Map(data.surveys.data.map((s) => [s.id, s.name]));
  useEffect(() => {
    document.getElementById('theme-detail')?.focus();
  }, [theme]);
  return (
    <section class="card theme-detail" aria-labelledby="theme-detail" data-testid="theme-detail">
      <h2 id="theme-detail" tabIndex={-1}>
        {theme}
      </h2>
      <p>
        <Sampled count={total.total} noun="comment" soFar={splitText(total)}>
          {plural(total.total, 'comment')}: {splitText(total)}.
        </Sampled>
      </p>
      <Suspense
        fallback={
          <p class="muted" role="status">
            Drawing the chart…
          </p>
        }
      >
        <LineChart
          title={`${theme}: comments`}
          periods={periods}
          from={range.start}
          to={range.end}
          interval={range.interval}
          series={[
            // Positive first: the chart's first colour is the split bar's blue, its second the bar's orange.
            { label: 'Positive', values: rows.map((r) => r.positive) },
            { label: 'Negative', values: rows.map((r) => r.negative) },
          ]}
          format={(v) => formatCount(Math.round(v))}
          empty="No comment on this theme in these dates."
        />
      </Suspense>
      {SHOWN_SENTIMENTS.map((sentiment) => {
        const count = total[sentiment];
        const where = surveys.filter((s) => s[sentiment] > 0);
        return (
          <section key={sentiment} aria-labelledby={`examples-${sentiment}`} data-testid={`examples-${sentiment}`}>
            <h3 id={`examples-${sentiment}`}>{sentiment === 'negative' ? 'Negative comments' : 'Positive comments'}</h3>
            {count ? (
              <>
                <Loaded state={words} what="the words">
                  {(w) => <WordList theme={theme} sentiment={sentiment} words={w.analyticsThemeWords.filter((x) => x.sentiment === sentiment)} />}
                </Loaded>
                <Examples
                  business={business}
                  theme={theme}
                  sentiment={sentiment}
                  surveys={where.slice(0, EXAMPLE_SURVEYS).map((s) => s.survey!)}
                  range={range}
                  location={location}
                />
                <p class="feedback-links">
                  Every {sentiment} comment on {theme} in Feedback:{' '}
                  {where.map((s, i) => (
                    <span key={s.survey}>
                      {i > 0 && ', '}
                      <a href={feedbackHref(s.survey!, theme, sentiment, range, location)}>
                        {surveyName.get(s.survey!) ?? 'a deleted survey'} ({formatCount(s[sentiment])})
                      </a>
                    </span>
                  ))}
                </p>
              </>
            ) : (
              <p class="muted">
                No comment read as {sentiment} on {theme} in these dates.
              </p>
            )}
          </section>
        );
      })}
      <p>
        <a href={withQuery(query, { theme: undefined })}>Close {theme}</a>
      </p>
    </section>
  );
}

/** "Words guests use most: dirty (8), sticky (8)": the theme's words in the comments read with one sentiment. */
function WordList({ theme, sentiment, words }: { theme: string; sentiment: string; words: { word: string; count: number }[] }) {
  if (!words.length) return null;
  return (
    <div class="theme-words" data-testid={`words-${sentiment}`}>
      <p>Words guests use most:</p>
      <ul class="words" aria-label={`Words guests use most in ${sentiment} comments on ${theme}`}>
        {words.map((w) => (
          <li key={w.word}>
            <bdi>{w.word}</bdi> <span class="muted">({formatCount(w.count)})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

type Comment = { id: string; survey: string; createdAt: number; location: string | null; text: string; words: readonly string[] };

/**
 * The latest comments read as `sentiment` on the theme, from its busiest surveys (the Feedback list's theme filter,
 * three a survey): each text answer whose analysis names the theme so, its words marked.
 */
function Examples({
  business,
  theme,
  sentiment,
  surveys,
  range,
  location,
}: {
  business: string;
  theme: string;
  sentiment: string;
  surveys: string[];
  range: Range;
  location?: string;
}) {
  const state = useLoad(async () => {
    const where = { createdAt: { gte: range.start, lt: range.end }, theme: { theme, sentiment }, ...(location ? { location: { eq: location } } : {}) };
    const pages = await Promise.all(surveys.map((survey) => request(ThemeComments, { business, survey, where }).then((r) => ({ survey, r }))));
    const comments: Comment[] = [];
    for (const { survey, r } of pages) {
      for (const s of r.submissions.data) {
        for (const a of s.analysis) {
          const read = a.themes.find((t) => t.theme === theme && t.sentiment === sentiment);
          const value = s.answers.find((x) => x.step === a.step)?.value;
          if (read && typeof value === 'string')
            comments.push({ id: s.id, survey, createdAt: s.createdAt, location: s.location?.name ?? null, text: value, words: read.words });
        }
      }
    }
    return comments.sort((a, b) => b.createdAt - a.createdAt).slice(0, EXAMPLES);
  }, `${business}/${theme}/${sentiment}/${surveys}/${range.start}/${range.end}/${location}`);
  return (
    <Loaded state={state} what="comments">
      {(comments) => (
        <ul class="examples">
          {comments.map((c) => (
            <li key={c.id}>
              <blockquote>
                <Highlighted text={c.text} words={c.words} />
              </blockquote>
              <p class="muted">
                <a href={`/portal/feedback/${c.survey}/${c.id}`}>{formatDate(c.createdAt)}</a>
                {c.location ? ` · ${c.location}` : ''}
              </p>
            </li>
          ))}
        </ul>
      )}
    </Loaded>
  );
}

const isComment = (value: unknown) => typeof value === 'string' && value.trim() !== '';
/** How many surveys asking for a comment the empty state looks into, each its latest 20 answers of the range. */
const COMMENT_SURVEYS = 3;
/** How often the empty state looks again while comments wait to be read (the workers read each within seconds). */
const LOOK_AGAIN_MS = 3000;
const MAX_LOOKS = 40;

/**
 * No theme in the range, and why: no survey asks for a comment, no comment came, comments wait to be read (looked at
 * again every few seconds), or the comments read name no theme.
 */
function NoThemes({ business, survey, range, location, reload }: { business: string; survey?: string; range: Range; location?: string; reload: () => void }) {
  const state = useLoad(async () => {
    const surveys = (await request(ThemeSurveys, { business })).surveys;
    const asking = surveys.data.filter((s) => (!survey || s.id === survey) && s.steps.some((step) => step.type === 'text'));
    const texts = new Set(asking.flatMap((s) => s.steps.filter((step) => step.type === 'text').map((step) => step.id)));
    const where = { status: { eq: 'completed' }, createdAt: { gte: range.start, lt: range.end }, ...(location ? { location: { eq: location } } : {}) };
    const pages = await Promise.all(asking.slice(0, COMMENT_SURVEYS).map((s) => request(CommentsRead, { business, survey: s.id, where })));
    let comments = 0;
    let waiting = 0;
    for (const p of pages) {
      for (const s of p.submissions.data) {
        const given = s.answers.filter((a) => texts.has(a.step) && isComment(a.value));
        comments += given.length;
        waiting += given.filter((a) => !s.analysis.some((x) => x.step === a.step)).length;
      }
    }
    return { surveys: surveys.total, asking: asking.length, comments, waiting };
  }, `${business}/${survey}/${range.start}/${range.end}/${location}`);
  const waiting = state.data?.waiting ?? 0;
  const looks = useRef(0);
  useEffect(() => {
    if (!waiting || ++looks.current > MAX_LOOKS) return;
    const timer = setTimeout(() => {
      state.reload();
      reload();
    }, LOOK_AGAIN_MS);
    return () => clearTimeout(timer);
  }, [state.data]);
  const dates = `between ${formatDay(range.start)} and ${formatDay(range.end - DAY)}`;
  return (
    <Loaded state={state} what="the comments">
      {({ surveys, asking, comments }) => (
        <Empty>
          {!asking ? (
            <>
              <p>No survey asks guests for a comment{surveys ? '' : ' (there is no survey yet)'}, so there is nothing to read for themes.</p>
              <p>
                Add a text question to a survey under <a href="/portal/surveys">Surveys</a>: each comment is read for its themes as it arrives.
              </p>
            </>
          ) : !comments ? (
            <p>
              No comments yet {dates}
              {location ? ' at this location' : ''}: themes appear here as guests answer your surveys’ text questions.
            </p>
          ) : waiting ? (
            <p role="status">
              {plural(waiting, 'comment')} {dates} {waiting === 1 ? 'is' : 'are'} not analysed yet. New comments are read within seconds (this page looks again
              by itself); those written before the service read comments are read when an administrator runs the reading of past answers.
            </p>
          ) : (
            <p>
              The {plural(comments, 'comment')} {dates} name no theme the service reads. Add your guests’ words under{' '}
              <a href="/portal/themes/settings">Theme settings</a>.
            </p>
          )}
        </Empty>
      )}
    </Loaded>
  );
}
