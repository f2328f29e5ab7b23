import type { ScreenProps } from '../screen';
import { graphql, request, type ResultOf, type VariablesOf } from '../graphql';
import { Empty, Failure, Loaded, download, formatDate, formatMoney, localDateTime, useLoad, zoneName, useSubmit, Table, OrderLines } from '../ui';
import { DateFilters, FilterSelect, Pager, datesOf, NoMatch } from '../lists';
import { useLiveEvents } from '../live';
import { AnswerList, answerText, dishRatingCell, stepTitle } from '../answers';
import { csvText } from '../../shared/csv';
import { ThemeChips } from '../themes';
import { may } from '../roles';
import { BUILT_IN_THEMES, SENTIMENT_LABELS } from '../../shared/themes';

const FeedbackFilters = graphql(`
  query FeedbackFilters($business: ID!, $themes: Boolean!) {
    surveys(business: $business, pageSize: 100) { data { id name } }
    locations(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
    themeSettings(business: $business) @include(if: $themes) { words { theme } }
  }
`);

/** The chosen survey's steps apart from the list of surveys: every survey's steps and metrics cost 46,000, this 600. */
const FeedbackSurvey = graphql(`
  query FeedbackSurvey($business: ID!, $id: ID!) {
    survey(business: $business, id: $id) { id name steps { id position type content metrics { metrics { id name scale { min max } } } } }
  }
`);

/** The names of the dishes an export's answers rate (answers name them by menu item id). */
const DishNames = graphql(`
  query DishNames($business: ID!, $ids: [ID!]!, $page: Int!) {
    menuItems(business: $business, where: { id: { in: $ids } }, page: $page, pageSize: 100) { hasMore data { id name } }
  }
`);

/** A page of the list: each text answer's themes beside it (`themes`, one list a row: `analysis` costs a list in a list). */
const FeedbackList = graphql(`
  query FeedbackList($business: ID!, $survey: ID!, $where: SubmissionWhere, $page: Int!) {
    submissions(business: $business, survey: $survey, where: $where, page: $page, pageSize: 20) {
      total page hasMore
      data { id status channel source createdAt completedAt answers { step value ratings items } themes { step theme sentiment } location { id name } order { id externalOrderId } }
    }
  }
`);

/** The export's pages: 100 rows without their themes (with them, a page would outweigh the API quota's burst). */
const FeedbackExport = graphql(`
  query FeedbackExport($business: ID!, $survey: ID!, $where: SubmissionWhere, $page: Int!) {
    submissions(business: $business, survey: $survey, where: $where, page: $page, pageSize: 100) {
      hasMore
      data { id status channel createdAt answers { step value ratings items } location { name } order { externalOrderId } }
    }
  }
`);

const FeedbackItem = graphql(`
  query FeedbackItem($business: ID!, $survey: ID!, $id: ID!) {
    submission(business: $business, survey: $survey, id: $id) {
      id status channel source createdAt completedAt metadata guestId
      answers { step value ratings items }
      analysis { step themes { theme sentiment } }
      survey { id name steps { id position type content metrics { metrics { id name scale { min max } } } } }
      location { id name }
      order { id externalOrderId externalLocationId total currency status channel createdAt items { id name quantity unitPrice totalPrice menuItem { id name } } }
    }
  }
`);

const STATUSES = ['completed', 'partial'];
/** A guest's first answer creates a partial submission; the last completes it (submission.completed). */
const LIVE_TYPES = ['submission.created', 'submission.updated', 'submission.completed', 'submission.deleted'];
const CHANNELS = ['qr', 'link', 'sms', 'email'];
/**
 * "Who rated anything this low?": the filter a manager reaches for first, offering the ratings the survey's metrics
 * can have (1 to 5 on 1-5 scales); none when the survey rates nothing.
 */
function ratingsOf(survey: SurveyRow): number[] {
  const scales = survey.steps.flatMap((s) => s.metrics?.metrics.map((m) => m.scale) ?? []);
  if (!scales.length) return [];
  const min = Math.min(...scales.map((s) => s.min));
  const max = Math.max(...scales.map((s) => s.max));
  return Array.from({ length: Math.max(0, max - min + 1) }, (_, i) => min + i);
}

function whereOf(query: URLSearchParams): VariablesOf<typeof FeedbackList>['where'] {
  const where: NonNullable<VariablesOf<typeof FeedbackList>['where']> = {};
  if (query.get('status')) where.status = { eq: query.get('status')! };
  if (query.get('channel')) where.channel = { eq: query.get('channel')! };
  if (query.get('location')) where.location = { eq: query.get('location')! };
  if (Number(query.get('ratingAtMost')) > 0) where.lowestRating = { lte: Number(query.get('ratingAtMost')) };
  // A text answer read as speaking of the theme (with that sentiment, when one is chosen): the Themes screen links here.
  if (query.get('theme')) where.theme = { theme: query.get('theme')!, ...(query.get('sentiment') ? { sentiment: query.get('sentiment')! } : {}) };
  const dates = datesOf(query);
  if (dates) where.createdAt = dates;
  return where;
}

type Row = ResultOf<typeof FeedbackList>['submissions']['data'][number];
type ExportRow = ResultOf<typeof FeedbackExport>['submissions']['data'][number];
/** Submissions of a survey, filtered by what the URL says, a page at a time; CSV of everything the filters select. */
export default function Feedback({ session, query }: ScreenProps) {
  const filters = useLoad(() => request(FeedbackFilters, { business: session.business, themes: may(session, 'business:read') }), session.business);
  return (
    <>
      <h1 tabIndex={-1}>Feedback</h1>
      <Loaded state={filters} what="surveys">
        {(f) => {
          if (!f.surveys.data.length)
            return (
              <Empty>
                No survey yet, so no feedback. <a href="/portal/surveys/new">Create a survey</a> and share its link or QR code.
              </Empty>
            );
          const chosen = f.surveys.data.find((s) => s.id === query.get('survey')) ?? f.surveys.data[0];
          const themes = [...new Set<string>([...BUILT_IN_THEMES, ...(f.themeSettings?.words ?? []).map((w) => w.theme)])];
          return (
            <SurveyFeedback business={session.business} id={chosen.id} surveys={f.surveys.data} locations={f.locations.data} themes={themes} query={query} />
          );
        }}
      </Loaded>
    </>
  );
}

type SurveyRow = ResultOf<typeof FeedbackSurvey>['survey'];
type Choices = { surveys: { id: string; name: string }[]; locations: { id: string; name: string }[]; themes: string[] };

function SurveyFeedback({ business, id, ...rest }: Choices & { business: string; id: string; query: URLSearchParams }) {
  const state = useLoad(() => request(FeedbackSurvey, { business, id }), `${business}/${id}`);
  return (
    <Loaded state={state} what="the survey">
      {(d) => <FeedbackFor business={business} survey={d.survey} {...rest} />}
    </Loaded>
  );
}

function FeedbackFor({ business, survey, surveys, locations, themes, query }: Choices & { business: string; survey: SurveyRow; query: URLSearchParams }) {
  const page = Number(query.get('page') ?? 0) || 0;
  const where = whereOf(query);
  const list = useLoad(() => request(FeedbackList, { business, survey: survey.id, where, page }), `${business}/${survey.id}/${query}`);
  // New and changed feedback shows up while the list is open.
  useLiveEvents(business, LIVE_TYPES, list.reload);
  const exporting = useSubmit();
  const ratings = ratingsOf(survey);
  const exportCsv = () =>
    exporting.run(async () => {
      const rows: ExportRow[] = [];
      for (let p = 0; ; p++) {
        const r = await request(FeedbackExport, { business, survey: survey.id, where, page: p });
        rows.push(...r.submissions.data);
        if (!r.submissions.hasMore) break;
      }
      const ids = [...new Set(rows.flatMap((r) => r.answers.flatMap((a) => Object.keys(a.items ?? {}))))];
      const dishes = new Map<string, string>();
      for (let p = 0; ids.length; p++) {
        const r = await request(DishNames, { business, ids, page: p });
        for (const d of r.menuItems.data) dishes.set(d.id, d.name);
        if (!r.menuItems.hasMore) break;
      }
      // The REST reports' CSV (src/shared/csv.ts): a guest's "=cmd|…" comment stays text in a spreadsheet.
      download(`feedback-${survey.id}.csv`, new Blob([csvText(feedbackCsv(survey, rows, dishes))], { type: 'text/csv' }));
    });
  return (
    <>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <FilterSelect query={query} name="survey" label="Survey" choices={surveys} value={survey.id} any={false} />
        <FilterSelect query={query} name="status" label="Status" choices={STATUSES} />
        <FilterSelect query={query} name="channel" label="Channel" choices={CHANNELS} />
        <FilterSelect query={query} name="location" label="Location" choices={locations} />
        <FilterSelect
          query={query}
          name="theme"
          label="Theme"
          choices={[...themes, ...[query.get('theme') ?? ''].filter((t) => t && !themes.includes(t))]}
          changes={(theme) => ({ theme, ...(theme ? {} : { sentiment: undefined }) })}
        />
        {query.get('theme') && <FilterSelect query={query} name="sentiment" label="Theme read as" choices={SENTIMENT_LABELS} />}
        {ratings.length > 0 && (
          <FilterSelect
            query={query}
            name="ratingAtMost"
            label="A rating at most"
            choices={ratings.map((n) => ({ id: String(n), name: `${n} (any metric)` }))}
          />
        )}
        <DateFilters query={query} />
      </form>
      <p>
        <button type="button" class="secondary" disabled={exporting.busy} onClick={exportCsv}>
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
      </p>
      {exporting.error ? <Failure error={exporting.error} /> : null}
      <Loaded state={list} what="feedback">
        {(r) =>
          r.submissions.data.length ? (
            <>
              <Table caption={`Feedback for ${survey.name}`} columns={['Received', 'Status', 'Channel', 'Location', 'Order', 'Answers']}>
                {r.submissions.data.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <a href={`/portal/feedback/${survey.id}/${s.id}`}>{formatDate(s.createdAt)}</a>
                    </td>
                    <td>{s.status}</td>
                    <td>{s.channel ?? s.source}</td>
                    <td>{s.location?.name ?? '—'}</td>
                    <td>{s.order ? <a href={`/portal/orders/${s.order.id}`}>{s.order.externalOrderId}</a> : '—'}</td>
                    <td>
                      <AnswersCell answers={s.answers} themes={s.themes} />
                    </td>
                  </tr>
                ))}
              </Table>
              <Pager list={r.submissions} query={query} />
            </>
          ) : (
            <NoMatch what="feedback" query={query} clear="/portal/feedback">
              Share the survey's link or QR code from <a href={`/portal/surveys/${survey.id}`}>its page</a>.
            </NoMatch>
          )
        }
      </Loaded>
    </>
  );
}

/** A submission's answers in one cell, " · " between them, each text answer followed by the themes read in it. */
function AnswersCell({ answers, themes }: { answers: Row['answers']; themes: Row['themes'] }) {
  const shown = answers.map((a) => ({ a, text: answerText(a) })).filter((x) => x.text);
  return (
    <>
      {shown.map(({ a, text }, i) => (
        <div key={a.step} class="inline">
          {i > 0 && ' · '}
          {text}
          <ThemeChips themes={themes.filter((t) => t.step === a.step)} />
        </div>
      ))}
    </>
  );
}

/** One submission: every answer beside its question, the location, the linked order and its lines. */
export function FeedbackDetail({ session, params }: ScreenProps) {
  const [survey, id] = params;
  const state = useLoad(() => request(FeedbackItem, { business: session.business, survey, id }), `${session.business}/${id}`);
  return (
    <>
      <p>
        <a href={`/portal/feedback?survey=${survey}`}>← Feedback</a>
      </p>
      <Loaded state={state} what="the feedback">
        {({ submission: s }) => {
          return (
            <>
              <h1 tabIndex={-1}>Feedback of {formatDate(s.createdAt)}</h1>
              <dl class="facts">
                <dt>Survey</dt>
                <dd>{s.survey?.name ?? '(deleted)'}</dd>
                <dt>Status</dt>
                <dd>
                  {s.status}
                  {s.completedAt ? `, ${formatDate(s.completedAt)}` : ''}
                </dd>
                <dt>Channel</dt>
                <dd>{s.channel ?? s.source}</dd>
                <dt>Location</dt>
                <dd>{s.location?.name ?? '—'}</dd>
              </dl>
              <h2>Answers</h2>
              <AnswerList steps={s.survey?.steps ?? []} answers={s.answers} dishes={s.order?.items} analysis={s.analysis} />
              <h2>Order</h2>
              {s.order ? (
                <>
                  <p>
                    <a href={`/portal/orders/${s.order.id}`}>Order {s.order.externalOrderId}</a> · {formatMoney(s.order.total, s.order.currency)} ·{' '}
                    {s.order.status} · {formatDate(s.order.createdAt)}
                  </p>
                  <OrderLines items={s.order.items} currency={s.order.currency} />
                </>
              ) : (
                <p class="muted">Not linked to an order (links with an order id tie the two).</p>
              )}
            </>
          );
        }}
      </Loaded>
    </>
  );
}

/**
 * The feedback as a spreadsheet: a line per submission, its time on the business's clock (the zone named in the
 * header), then a column per question; a ratings step gives a column per metric and a dishes step one per dish rated,
 * each named (by its step's title too when two columns would share a name), holding the number the guest gave.
 */
function feedbackCsv(survey: SurveyRow, rows: ExportRow[], dishes: Map<string, string>): string[][] {
  const columns: { name: string; step: string; stepId: string; value: (answer: ExportRow['answers'][number]) => string }[] = [];
  for (const step of [...survey.steps].sort((a, b) => a.position - b.position)) {
    const title = stepTitle(step) || step.type;
    if (step.metrics?.metrics.length) {
      for (const m of step.metrics.metrics)
        columns.push({ name: m.name, step: title, stepId: step.id, value: (a) => String((a.ratings as Record<string, unknown> | null)?.[m.id] ?? '') });
    } else if (step.type === 'items') {
      const rated = [...new Set(rows.flatMap((r) => r.answers.filter((a) => a.step === step.id).flatMap((a) => Object.keys(a.items ?? {}))))];
      const named = rated.map((id) => ({ id, name: dishes.get(id) ?? 'A deleted dish' })).sort((a, b) => a.name.localeCompare(b.name));
      for (const d of named) {
        columns.push({
          name: d.name,
          step: title,
          stepId: step.id,
          value: (a) => {
            const rating = (a.items as Record<string, unknown> | null)?.[d.id];
            return rating == null ? '' : dishRatingCell(step, rating);
          },
        });
      }
    } else {
      columns.push({ name: title, step: title, stepId: step.id, value: (a) => answerText(a) });
    }
  }
  const shared = new Set(columns.map((c) => c.name).filter((name, i, all) => all.indexOf(name) !== i));
  const header = [
    'Feedback id',
    `Received (${zoneName()})`,
    'Status',
    'Channel',
    'Location',
    'Order',
    ...columns.map((c) => (shared.has(c.name) ? `${c.step}: ${c.name}` : c.name)),
  ];
  const lines = rows.map((r) => [
    r.id,
    localDateTime(r.createdAt),
    r.status,
    r.channel ?? '',
    r.location?.name ?? '',
    r.order?.externalOrderId ?? '',
    ...columns.map((c) => {
      const answer = r.answers.find((a) => a.step === c.stepId);
      return answer ? c.value(answer) : '';
    }),
  ]);
  return [header, ...lines];
}
