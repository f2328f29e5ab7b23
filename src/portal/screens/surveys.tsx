import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { graphql, request } from '../graphql';
import { may, ReadOnlyNote } from '../roles';
import { Empty, Field, FormError, Loaded, formatDate, useLoad, useSubmit, Table, CardForm, TextField } from '../ui';

const SurveysScreenQuery = graphql(`
  query SurveysScreen($business: ID!) {
    surveys(business: $business, pageSize: 100) { total data { id name status createdAt steps { id } } }
    metrics(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { total data { id name description scale { min max } } }
  }
`);

const CreateMetric = graphql(`
  mutation CreateMetric($business: ID!, $input: CreateMetricInput!) {
    createMetric(business: $business, input: $input) { id }
  }
`);

/** Surveys (each opens its editor) and the metrics their steps rate, in one request. */
export default function Surveys({ session }: ScreenProps) {
  const state = useLoad(() => request(SurveysScreenQuery, { business: session.business }), session.business);
  const mayChange = may(session, 'surveys:write');
  return (
    <>
      <h1 tabIndex={-1}>Surveys</h1>
      {mayChange ? (
        <p>
          <a class="button" href="/portal/surveys/new">
            New survey
          </a>
        </p>
      ) : (
        <ReadOnlyNote scope="surveys:write">create and change surveys and metrics. You can read them here.</ReadOnlyNote>
      )}
      <Loaded state={state} what="surveys">
        {(data) => (
          <>
            {data.surveys.data.length ? (
              <Table caption="Surveys" columns={['Name', 'Status', 'Steps', 'Created']}>
                {data.surveys.data.map((s) => (
                  <tr key={s.id}>
                    <td>
                      <a href={`/portal/surveys/${s.id}`}>{s.name}</a>
                    </td>
                    <td>
                      <span class={`status ${s.status}`}>{s.status}</span>
                    </td>
                    <td>{s.steps.length}</td>
                    <td>{formatDate(s.createdAt)}</td>
                  </tr>
                ))}
              </Table>
            ) : (
              <Empty>
                {mayChange ? (
                  <>
                    No survey yet. Create the metrics you want rated (below), then <a href="/portal/surveys/new">create a survey</a> and add its steps.
                  </>
                ) : (
                  'No survey yet.'
                )}
              </Empty>
            )}
            <h2>Metrics</h2>
            <p class="muted">What guests rate on a metrics step, each on its own scale (food, service, speed…).</p>
            {data.metrics.data.length ? (
              <ul class="metrics">
                {data.metrics.data.map((m) => (
                  <li key={m.id}>
                    <strong>{m.name}</strong>{' '}
                    <span class="muted">
                      {m.scale.min} to {m.scale.max}
                    </span>
                    {m.description ? ` — ${m.description}` : ''}
                  </li>
                ))}
              </ul>
            ) : (
              <Empty>{may(session, 'metrics:write') ? 'No metric yet: add one below.' : 'No metric yet.'}</Empty>
            )}
            {may(session, 'metrics:write') && <NewMetric business={session.business} onCreated={state.reload} />}
          </>
        )}
      </Loaded>
    </>
  );
}

function NewMetric({ business, onCreated }: { business: string; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [min, setMin] = useState('1');
  const [max, setMax] = useState('5');
  const submit = useSubmit();
  return (
    <CardForm
      label="New metric"
      onSubmit={async () => {
        const done = await submit.run(() =>
          request(CreateMetric, { business, input: { name, description: description || null, scale: { min: Number(min), max: Number(max) } } }),
        );
        if (done) {
          setName('');
          setDescription('');
          onCreated();
        }
      }}
    >
      <h3>New metric</h3>
      <TextField label="Name" error={submit.fields.name} value={name} onValue={setName} />
      <Field label="Description (optional)" error={submit.fields.description}>
        {(id, d) => <input id={id} aria-describedby={d} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      <div class="row">
        <Field label="Lowest rating" error={submit.fields['scale.min'] ?? submit.fields.scale}>
          {(id, d) => <input id={id} aria-describedby={d} type="number" value={min} onInput={(e) => setMin(e.currentTarget.value)} />}
        </Field>
        <Field label="Highest rating" error={submit.fields['scale.max']}>
          {(id, d) => <input id={id} aria-describedby={d} type="number" value={max} onInput={(e) => setMax(e.currentTarget.value)} />}
        </Field>
      </div>
      <FormError error={submit.error} shown={['name', 'description', 'scale', 'scale.min', 'scale.max']} />
      <button type="submit" disabled={submit.busy}>
        {submit.busy ? 'Adding…' : 'Add metric'}
      </button>
    </CardForm>
  );
}
