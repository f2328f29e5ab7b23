import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { graphql, request, type ResultOf } from '../graphql';
import { navigate } from '../router';
import { may, ReadOnlyNote } from '../roles';
import { GUEST_LANGUAGE_CODES, GUEST_LANGUAGES } from '../../shared/guest-languages';
import { stepTitle as titleOf } from '../answers';
import { CopyText, Empty, Failure, Field, FormError, Loaded, Options, SaveButton, download, useLoad, useSubmit, ChoiceField, CardForm, TextField } from '../ui';

const SurveyEditorQuery = graphql(`
  query SurveyEditor($business: ID!, $id: ID!, $withSurvey: Boolean!) {
    survey(business: $business, id: $id) @include(if: $withSurvey) {
      id name description status closingText reviewUrl url languages
      steps { id position type required inputType content metrics { metrics { id name } } }
    }
    metrics(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name scale { min max } } }
    locations(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
  }
`);

const CreateSurvey = graphql(`
  mutation CreateSurvey($business: ID!, $input: CreateSurveyInput!) { createSurvey(business: $business, input: $input) { id } }
`);
const UpdateSurvey = graphql(`
  mutation UpdateSurvey($business: ID!, $id: ID!, $input: UpdateSurveyInput!) { updateSurvey(business: $business, id: $id, input: $input) { id } }
`);
const CreateStep = graphql(`
  mutation CreateStep($business: ID!, $survey: ID!, $input: CreateSurveyStepInput!) { createSurveyStep(business: $business, survey: $survey, input: $input) { id } }
`);
const UpdateStep = graphql(`
  mutation UpdateStep($business: ID!, $survey: ID!, $id: ID!, $input: UpdateSurveyStepInput!) { updateSurveyStep(business: $business, survey: $survey, id: $id, input: $input) { id } }
`);
const DeleteStep = graphql(`
  mutation DeleteStep($business: ID!, $survey: ID!, $id: ID!) { deleteSurveyStep(business: $business, survey: $survey, id: $id) }
`);
const SurveyLink = graphql(`
  query SurveyLink($business: ID!, $survey: ID!, $location: ID, $orderId: ID, $channel: LinkChannel) {
    surveyLink(business: $business, survey: $survey, location: $location, orderId: $orderId, channel: $channel)
  }
`);

type Data = ResultOf<typeof SurveyEditorQuery>;
type Survey = NonNullable<Data['survey']>;
type Step = Survey['steps'][number];
const STEP_TYPES = ['metrics', 'items', 'nps', 'choice', 'text', 'contact', 'info', 'location'] as const;
type StepType = (typeof STEP_TYPES)[number];
/** Each type as the select offers it: the API's word, then what the guest is asked. */
const STEP_LABELS: Record<StepType, string> = {
  metrics: 'metrics: rate the metrics you choose',
  items: 'items: rate each dish of the order',
  nps: 'nps: how likely to recommend, 0 to 10',
  choice: 'choice: pick among your choices',
  text: 'text: write an answer',
  contact: 'contact: how to reach the guest',
  info: 'info: a message, no answer',
  location: 'location: which of your locations',
};
/** How an items step asks about each dish (content.scale: the API's ITEM_SCALES), in words; 5 is the API's default. */
const ITEM_SCALES = [
  ['5', 'From 1 to 5'],
  ['thumbs', 'Thumbs up or down (counted as 5 or 1)'],
] as const;
type ItemScale = (typeof ITEM_SCALES)[number][0];
const scaleOf = (content: Record<string, unknown> | undefined): ItemScale => (content?.scale === 'thumbs' ? 'thumbs' : '5');
const STATUSES = ['draft', 'active', 'archived'] as const;

/** One survey: its settings, its steps (added, edited, reordered by keyboard or by drag), its links and QR codes. */
export default function SurveyEditor({ session, params }: ScreenProps) {
  const id = params[0];
  const isNew = id === 'new';
  const state = useLoad(
    () => request(SurveyEditorQuery, { business: session.business, id: isNew ? 'sur_none' : id, withSurvey: !isNew }),
    `${session.business}/${id}`,
  );
  const mayChange = may(session, 'surveys:write');
  if (!mayChange && isNew) {
    return (
      <>
        <p>
          <a href="/portal/surveys">← Surveys</a>
        </p>
        <h1 tabIndex={-1}>New survey</h1>
        <ReadOnlyNote scope="surveys:write">create surveys.</ReadOnlyNote>
      </>
    );
  }
  return (
    <>
      <p>
        <a href="/portal/surveys">← Surveys</a>
      </p>
      <Loaded state={state} what="the survey">
        {(data) => (
          <>
            <h1 tabIndex={-1}>{data.survey ? data.survey.name : 'New survey'}</h1>
            {mayChange ? (
              <SurveyForm business={session.business} survey={data.survey ?? undefined} onSaved={state.reload} />
            ) : (
              <>
                <ReadOnlyNote scope="surveys:write">change a survey and its steps. You can read it here and make its links.</ReadOnlyNote>
                <SurveyFacts survey={data.survey!} />
              </>
            )}
            {data.survey && (
              <>
                <Steps business={session.business} survey={data.survey} metrics={data.metrics.data} onChange={state.reload} mayChange={mayChange} />
                <LinkBuilder
                  business={session.business}
                  survey={data.survey}
                  locations={data.locations.data}
                  mayAddLocations={may(session, 'locations:write')}
                />
              </>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}

/** A new survey speaks the owner's language where the guest page has it, else English. */
function firstLanguage(): string[] {
  const mine = navigator.language.split('-')[0];
  return [(GUEST_LANGUAGE_CODES as string[]).includes(mine) ? mine : 'en'];
}

/** The survey's settings as a member who may not change them reads them. */
function SurveyFacts({ survey }: { survey: Survey }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <span class={`status ${survey.status}`}>{survey.status}</span>
      </dd>
      <dt>Description</dt>
      <dd>{survey.description || 'none'}</dd>
      <dt>Thank-you text</dt>
      <dd>{survey.closingText || 'the default'}</dd>
      <dt>Review link</dt>
      <dd>{survey.reviewUrl || 'none'}</dd>
      <dt>Languages of the guest page</dt>
      <dd>{(survey.languages ?? GUEST_LANGUAGE_CODES).map((code) => GUEST_LANGUAGES[code as keyof typeof GUEST_LANGUAGES] ?? code).join(', ')}</dd>
    </dl>
  );
}

function SurveyForm({ business, survey, onSaved }: { business: string; survey?: Survey; onSaved: () => void }) {
  const [name, setName] = useState(survey?.name ?? '');
  const [description, setDescription] = useState(survey?.description ?? '');
  const [status, setStatus] = useState<(typeof STATUSES)[number]>(survey?.status ?? 'draft');
  const [closingText, setClosingText] = useState(survey?.closingText ?? '');
  const [reviewUrl, setReviewUrl] = useState(survey?.reviewUrl ?? '');
  const [languages, setLanguages] = useState<string[]>(survey ? (survey.languages ?? GUEST_LANGUAGE_CODES) : firstLanguage());
  const [saved, setSaved] = useState(false);
  const submit = useSubmit();
  const f = submit.fields;
  return (
    <CardForm
      label="Survey settings"
      onSubmit={async () => {
        setSaved(false);
        const input = { name, description: description || null, status, closingText: closingText || null, reviewUrl: reviewUrl || null, languages };
        if (!survey) {
          const created = await submit.run(() => request(CreateSurvey, { business, input }));
          if (created) navigate(`/portal/surveys/${created.createSurvey.id}`, { replace: true });
        } else if (await submit.run(() => request(UpdateSurvey, { business, id: survey.id, input }))) {
          setSaved(true);
          onSaved();
        }
      }}
    >
      <TextField label="Name" error={f.name} value={name} onValue={setName} />
      <Field label="Description (for you, not shown to guests)" error={f.description}>
        {(id, d) => <input id={id} aria-describedby={d} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      <ChoiceField label="Status" error={f.status} hint="Only an active survey takes answers." value={status} choices={STATUSES} onChange={setStatus} />
      <Field label="Thank-you text" error={f.closingText}>
        {(id, d) => <textarea id={id} aria-describedby={d} value={closingText} onInput={(e) => setClosingText(e.currentTarget.value)} />}
      </Field>
      <Field label="Review link (optional)" error={f.reviewUrl} hint="Shown to every guest on the thank-you screen.">
        {(id, d) => (
          <input id={id} aria-describedby={d} aria-invalid={!!f.reviewUrl} type="url" value={reviewUrl} onInput={(e) => setReviewUrl(e.currentTarget.value)} />
        )}
      </Field>
      <fieldset aria-describedby={f.languages ? 'languages-error' : 'languages-hint'}>
        <legend>Languages of the guest page</legend>
        <p id="languages-hint" class="muted">
          Guests are shown the page in the one their phone prefers among these, and can switch between them. Offer only the languages your questions are written
          in.
        </p>
        {GUEST_LANGUAGE_CODES.map((code) => (
          <label key={code} class="check">
            <input
              type="checkbox"
              checked={languages.includes(code)}
              onChange={(e) =>
                setLanguages(
                  e.currentTarget.checked ? GUEST_LANGUAGE_CODES.filter((c) => c === code || languages.includes(c)) : languages.filter((c) => c !== code),
                )
              }
            />
            {GUEST_LANGUAGES[code]}
          </label>
        ))}
        {f.languages && (
          <span id="languages-error" class="field-error">
            {f.languages}
          </span>
        )}
      </fieldset>
      <FormError error={submit.error} shown={['name', 'description', 'status', 'closingText', 'reviewUrl', 'languages']} />
      <SaveButton busy={submit.busy} label={survey ? 'Save survey' : 'Create survey'} saved={saved} />
    </CardForm>
  );
}

function Steps({
  business,
  survey,
  metrics,
  onChange,
  mayChange,
}: {
  business: string;
  survey: Survey;
  metrics: Data['metrics']['data'];
  onChange: () => void;
  mayChange: boolean;
}) {
  const [editing, setEditing] = useState<string>();
  const [dragged, setDragged] = useState<string>();
  const [announce, setAnnounce] = useState('');
  const move = useSubmit();
  const moveTo = async (step: Step, position: number) => {
    if (position < 0 || position >= survey.steps.length || position === step.position) return;
    const done = await move.run(() => request(UpdateStep, { business, survey: survey.id, id: step.id, input: { position } }));
    if (done) {
      setAnnounce(`${titleOf(step) || step.type} moved to position ${position + 1}.`);
      onChange();
    }
  };
  return (
    <section aria-labelledby="steps-heading">
      <h2 id="steps-heading">Steps</h2>
      <p class="muted">Guests see one step per screen, in this order.{mayChange && ' Move a step with its buttons, or drag it by its handle.'}</p>
      <p class="sr-only" role="status" aria-live="polite">
        {announce}
      </p>
      {move.error ? <Failure error={move.error} /> : null}
      {survey.steps.length ? (
        <ol class="steps">
          {survey.steps.map((step) => (
            <li
              key={step.id}
              class={dragged === step.id ? 'step dragging' : 'step'}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                e.preventDefault();
                const from = survey.steps.find((s) => s.id === dragged);
                setDragged(undefined);
                if (from) void moveTo(from, step.position);
              }}
            >
              <div class="step-head">
                {mayChange && (
                  <span
                    class="handle"
                    draggable
                    onDragStart={(e) => {
                      setDragged(step.id);
                      e.dataTransfer?.setData('text/plain', step.id);
                    }}
                    aria-hidden="true"
                    title="Drag to move"
                  >
                    ⋮⋮
                  </span>
                )}
                <span>
                  <strong>
                    {step.position + 1}. {titleOf(step) || '(no title)'}
                  </strong>{' '}
                  <span class="muted">
                    {step.type}
                    {step.required ? ', required' : ''}
                    {step.metrics ? `: ${step.metrics.metrics.map((m) => m.name).join(', ')}` : ''}
                    {step.type === 'items' ? `: each dish ${scaleOf(step.content) === 'thumbs' ? 'thumbs up or down' : 'from 1 to 5'}` : ''}
                  </span>
                </span>
                {mayChange && (
                  <span class="actions">
                    <button
                      type="button"
                      class="secondary"
                      disabled={step.position === 0 || move.busy}
                      onClick={() => moveTo(step, step.position - 1)}
                      aria-label={`Move step ${step.position + 1} up`}
                    >
                      Up
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      disabled={step.position === survey.steps.length - 1 || move.busy}
                      onClick={() => moveTo(step, step.position + 1)}
                      aria-label={`Move step ${step.position + 1} down`}
                    >
                      Down
                    </button>
                    <button
                      type="button"
                      class="secondary"
                      aria-expanded={editing === step.id}
                      onClick={() => setEditing(editing === step.id ? undefined : step.id)}
                    >
                      Edit
                    </button>
                  </span>
                )}
              </div>
              {editing === step.id && (
                <StepForm
                  business={business}
                  survey={survey.id}
                  metrics={metrics}
                  step={step}
                  onDone={() => {
                    setEditing(undefined);
                    onChange();
                  }}
                />
              )}
            </li>
          ))}
        </ol>
      ) : (
        <Empty>{mayChange ? 'No step yet: add the first one below (a metrics step asks guests to rate the metrics you choose).' : 'No step yet.'}</Empty>
      )}
      {mayChange && <StepForm key={survey.steps.length} business={business} survey={survey.id} metrics={metrics} onDone={onChange} />}
    </section>
  );
}

function StepForm({
  business,
  survey,
  metrics,
  step,
  onDone,
}: {
  business: string;
  survey: string;
  metrics: Data['metrics']['data'];
  step?: Step;
  onDone: () => void;
}) {
  const [type, setType] = useState<StepType>((step?.type as StepType) ?? 'metrics');
  const [title, setTitle] = useState(step ? titleOf(step) : '');
  const [body, setBody] = useState(typeof step?.content.body === 'string' ? step.content.body : '');
  const [choices, setChoices] = useState(Array.isArray(step?.content.choices) ? (step.content.choices as string[]).join('\n') : '');
  const [required, setRequired] = useState(step?.required ?? true);
  const [chosen, setChosen] = useState<string[]>(step?.metrics?.metrics.map((m) => m.id) ?? []);
  const [scale, setScale] = useState<ItemScale>(scaleOf(step?.content));
  const submit = useSubmit();
  const remove = useSubmit();
  const f = submit.fields;
  const content: Record<string, unknown> = { ...(step?.content ?? {}), title };
  if (body) content.body = body;
  else delete content.body;
  if (type === 'choice')
    content.choices = choices
      .split('\n')
      .map((c) => c.trim())
      .filter(Boolean);
  else delete content.choices;
  if (type === 'items') content.scale = scale;
  else delete content.scale;
  return (
    <CardForm
      label={step ? `Edit step ${step.position + 1}` : 'New step'}
      onSubmit={async () => {
        // An info step asks nothing, so there is nothing a guest must answer.
        const input = { type, required: type !== 'info' && required, content, metrics: type === 'metrics' ? { metrics: chosen } : null };
        const done = step
          ? await submit.run(() => request(UpdateStep, { business, survey, id: step.id, input }))
          : await submit.run(() => request(CreateStep, { business, survey, input }));
        if (done) onDone();
      }}
    >
      {!step && <h3>New step</h3>}
      <Field label="Type" error={f.type}>
        {(id, d) => (
          <select
            id={id}
            aria-describedby={d}
            value={type}
            onChange={(e) => {
              // The refusal was of the other type's fields, which are gone now (what was typed in the rest stays).
              submit.clear();
              setType(e.currentTarget.value as StepType);
            }}
          >
            {STEP_TYPES.map((t) => (
              <option key={t} value={t}>
                {STEP_LABELS[t]}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Title (the question)" error={f['content.title']} hint={type === 'items' ? 'Empty: “How was each dish?”' : undefined}>
        {(id, d) => <input id={id} aria-describedby={d} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
      </Field>
      <Field label="Text under the title (optional)" error={f['content.body']}>
        {(id, d) => <input id={id} aria-describedby={d} value={body} onInput={(e) => setBody(e.currentTarget.value)} />}
      </Field>
      {type === 'choice' && (
        <Field label="Choices, one per line" error={f['content.choices']}>
          {(id, d) => (
            <textarea id={id} aria-describedby={d} aria-invalid={!!f['content.choices']} value={choices} onInput={(e) => setChoices(e.currentTarget.value)} />
          )}
        </Field>
      )}
      {type === 'items' && (
        <Field
          label="Each dish is rated"
          error={f['content.scale']}
          hint="The step asks about each dish of the guest's order, by name; a guest whose answer is tied to no order (a QR code on a table) skips it."
        >
          {(id, d) => (
            <select id={id} aria-describedby={d} value={scale} onChange={(e) => setScale(e.currentTarget.value as ItemScale)}>
              {ITEM_SCALES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {type === 'metrics' && (
        <fieldset aria-describedby={f.metrics || f['metrics.metrics'] ? 'metrics-error' : undefined}>
          <legend>Metrics rated on this step</legend>
          {metrics.length ? (
            metrics.map((m) => (
              <label key={m.id} class="check">
                <input
                  type="checkbox"
                  checked={chosen.includes(m.id)}
                  onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, m.id] : chosen.filter((x) => x !== m.id))}
                />
                {m.name}{' '}
                <span class="muted">
                  ({m.scale.min}–{m.scale.max})
                </span>
              </label>
            ))
          ) : (
            <p class="muted">
              No metric yet: <a href="/portal/surveys">add metrics</a> first.
            </p>
          )}
          {(f.metrics || f['metrics.metrics']) && (
            <span id="metrics-error" class="field-error">
              {f.metrics ?? f['metrics.metrics']}
            </span>
          )}
        </fieldset>
      )}
      {type !== 'info' && (
        <label class="check">
          <input type="checkbox" checked={required} onChange={(e) => setRequired(e.currentTarget.checked)} /> Guests must answer it
        </label>
      )}
      <FormError error={submit.error} shown={['type', 'content.title', 'content.body', 'content.choices', 'content.scale', 'metrics', 'metrics.metrics']} />
      <div class="actions">
        <SaveButton busy={submit.busy} label={step ? 'Save step' : 'Add step'} />
        {step && (
          <button
            type="button"
            class="danger"
            disabled={remove.busy}
            onClick={async () => (await remove.run(() => request(DeleteStep, { business, survey, id: step.id }))) && onDone()}
          >
            Delete step
          </button>
        )}
      </div>
      {remove.error ? <Failure error={remove.error} /> : null}
    </CardForm>
  );
}

const CHANNELS = ['link', 'qr', 'sms', 'email'] as const;

/** The survey's link for a location, an order and a channel, and its QR code (PNG or SVG) for each location. */
function LinkBuilder({
  business,
  survey,
  locations,
  mayAddLocations,
}: {
  business: string;
  survey: Survey;
  locations: Data['locations']['data'];
  mayAddLocations: boolean;
}) {
  const [location, setLocation] = useState('');
  const [channel, setChannel] = useState<(typeof CHANNELS)[number]>('link');
  const [orderId, setOrderId] = useState('');
  const [link, setLink] = useState<string>();
  const submit = useSubmit();
  const qr = useSubmit();
  const slug =
    survey.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'survey';
  const saveQr = async (format: 'png' | 'svg') => {
    await qr.run(async () => {
      const { surveyLink } = await request(SurveyLink, { business, survey: survey.id, location: location || null, channel: 'qr' });
      const { default: QRCode } = await import('qrcode');
      const name = `${slug}${
        location
          ? `-${locations
              .find((l) => l.id === location)
              ?.name.toLowerCase()
              .replace(/[^a-z0-9]+/g, '-')}`
          : ''
      }-qr.${format}`;
      if (format === 'svg') download(name, new Blob([await QRCode.toString(surveyLink, { type: 'svg', margin: 2 })], { type: 'image/svg+xml' }));
      else {
        const canvas = document.createElement('canvas');
        await QRCode.toCanvas(canvas, surveyLink, { width: 1024, margin: 2 });
        download(
          name,
          await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The PNG could not be made'))), 'image/png')),
        );
      }
    });
  };
  return (
    <section aria-labelledby="links-heading">
      <h2 id="links-heading">Links and QR codes</h2>
      <p>
        Guest page:{' '}
        <a href={survey.url} target="_blank" rel="noopener">
          preview it
        </a>
        {survey.status !== 'active' && <span class="muted"> (it takes answers once the survey is active)</span>}
      </p>
      <CardForm
        label="Link builder"
        onSubmit={async () => {
          const r = await submit.run(() => request(SurveyLink, { business, survey: survey.id, location: location || null, orderId: orderId || null, channel }));
          if (r) setLink(r.surveyLink);
        }}
      >
        <div class="row">
          <Field label="Location" error={submit.fields.location}>
            {(id, d) => (
              <select id={id} aria-describedby={d} value={location} onChange={(e) => setLocation(e.currentTarget.value)}>
                <option value="">Any (the guest picks)</option>
                <Options of={locations} />
              </select>
            )}
          </Field>
          <ChoiceField label="Channel" error={submit.fields.channel} value={channel} choices={CHANNELS} onChange={setChannel} />
          <Field label="Order id (optional)" error={submit.fields.orderId}>
            {(id, d) => <input id={id} aria-describedby={d} value={orderId} onInput={(e) => setOrderId(e.currentTarget.value)} />}
          </Field>
        </div>
        <FormError error={submit.error} shown={['location', 'channel', 'orderId']} />
        <div class="actions">
          <button type="submit" disabled={submit.busy}>
            Build the link
          </button>
          <button type="button" class="secondary" disabled={qr.busy} onClick={() => saveQr('png')}>
            Download QR (PNG)
          </button>
          <button type="button" class="secondary" disabled={qr.busy} onClick={() => saveQr('svg')}>
            Download QR (SVG)
          </button>
        </div>
        {qr.error ? <Failure error={qr.error} /> : null}
        {link && (
          <p class="link-out">
            <code data-testid="survey-link">{link}</code> <CopyText value={link} label="the link" />
          </p>
        )}
        {!locations.length && (
          <p class="muted">
            No locations yet: links and QR codes then work for the whole business.{' '}
            {mayAddLocations ? (
              <>
                <a href="/portal/locations">Add your locations</a> for a code per branch.
              </>
            ) : (
              'An owner or a manager can add your locations, for a code per branch.'
            )}
          </p>
        )}
      </CardForm>
    </section>
  );
}
