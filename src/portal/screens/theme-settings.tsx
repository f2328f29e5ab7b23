import { useEffect, useRef, useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { graphql, request, type ResultOf } from '../graphql';
import { may, ReadOnlyNote } from '../roles';
import { CardForm, Field, FormError, Loaded, SaveButton, formatDate, plural, useLoad, useSubmit } from '../ui';
import { BUILT_IN_THEMES, THEME_WORD_LANGUAGES } from '../../shared/themes';

const ThemeSettingsScreen = graphql(`
  query ThemeSettingsScreen($business: ID!) {
    themeSettings(business: $business) { words { theme language words } off updatedAt }
  }
`);
const SaveThemeSettings = graphql(`
  mutation SaveThemeSettings($business: ID!, $input: UpdateThemeSettingsInput!) {
    updateThemeSettings(business: $business, input: $input) { words { theme language words } off updatedAt reanalysing }
  }
`);

type Settings = ResultOf<typeof ThemeSettingsScreen>['themeSettings'];
type Language = keyof typeof THEME_WORD_LANGUAGES;
const LANGUAGES = Object.keys(THEME_WORD_LANGUAGES) as Language[];

/** One theme as the form holds it: its words one per line in each language, so nothing typed is lost on a refusal. */
interface Draft {
  key: string;
  name: string;
  builtIn: boolean;
  on: boolean;
  words: Record<Language, string>;
}

let drafts = 0;
const noWords = (): Record<Language, string> => ({ en: '', ur: '', 'ur-Latn': '' });

/** The built-in themes in their order, then the business's own, each with its words and whether it is read. */
function draftsOf(settings: Settings): Draft[] {
  const own = [...new Set(settings.words.map((w) => w.theme).filter((t) => !(BUILT_IN_THEMES as readonly string[]).includes(t)))];
  return [...BUILT_IN_THEMES, ...own].map((theme) => {
    const words = noWords();
    for (const w of settings.words) if (w.theme === theme && w.language in words) words[w.language as Language] = w.words.join('\n');
    return { key: `t${++drafts}`, name: theme, builtIn: (BUILT_IN_THEMES as readonly string[]).includes(theme), on: !settings.off.includes(theme), words };
  });
}

const linesOf = (text: string) =>
  text
    .split('\n')
    .map((w) => w.trim())
    .filter(Boolean);

/**
 * What the API is sent, and which theme and language each entry of `words` came from (its refusals come back as
 * `words[i]...`, `off[i]`). A theme of the business's own with no word at all is sent with none in English, so the
 * API's refusal ("must hold at least one word") lands beside its words.
 */
function inputOf(list: Draft[]) {
  const entries: { key: string; language: Language; words: string[] }[] = [];
  for (const d of list) {
    const given = LANGUAGES.filter((l) => linesOf(d.words[l]).length);
    if (!given.length && !d.builtIn) entries.push({ key: d.key, language: 'en', words: [] });
    for (const language of given) entries.push({ key: d.key, language, words: linesOf(d.words[language]) });
  }
  const off = list.filter((d) => !d.on);
  const name = (key: string) => list.find((d) => d.key === key)!.name.trim();
  return {
    entries,
    off: off.map((d) => d.key),
    input: { words: entries.map((e) => ({ theme: name(e.key), language: e.language, words: e.words })), off: off.map((d) => d.name.trim()) },
  };
}

/**
 * The business's own words for the themes its guests' comments are read for: words added to a built-in theme in
 * English, Urdu and Roman Urdu, themes of its own (parking), themes switched off. Read by every member; changed by
 * those whose role holds business:write.
 */
export default function ThemeSettings({ session }: ScreenProps) {
  const state = useLoad(() => request(ThemeSettingsScreen, { business: session.business }), session.business);
  const canWrite = may(session, 'business:write');
  return (
    <>
      <p>
        <a href="/portal/themes">← Themes</a>
      </p>
      <h1 tabIndex={-1}>Theme settings</h1>
      <p>
        Guests’ comments are read for themes (food, speed, staff…) with words built into the service, in English, Urdu and Roman Urdu. Add the words your guests
        use (a dish’s nickname, your area’s spelling), add themes of your own, or switch off themes that do not concern you.
      </p>
      {!canWrite && <ReadOnlyNote scope="business:write">change the theme words. You can read them here.</ReadOnlyNote>}
      <Loaded state={state} what="the theme settings">
        {(data) => <SettingsForm business={session.business} settings={data.themeSettings} canWrite={canWrite} />}
      </Loaded>
    </>
  );
}

function SettingsForm({ business, settings, canWrite }: { business: string; settings: Settings; canWrite: boolean }) {
  const [list, setList] = useState(() => draftsOf(settings));
  const [sent, setSent] = useState(() => inputOf(list));
  const [saved, setSaved] = useState<{ at: number | null; reanalysing: number }>();
  const [added, setAdded] = useState<string>();
  const [updatedAt, setUpdatedAt] = useState(settings.updatedAt);
  const submit = useSubmit();
  const f = submit.fields;
  const newName = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (added) newName.current?.focus();
  }, [added]);
  const change = (key: string, changes: Partial<Draft>) => {
    setSaved(undefined);
    setList((old) => old.map((d) => (d.key === key ? { ...d, ...changes } : d)));
  };
  // The API's refusals of an entry, said beside the control they concern.
  const entryErrors = (key: string, test: (field: string) => boolean) =>
    sent.entries.flatMap((e, i) =>
      Object.entries(f).filter(([field]) => field.startsWith(`words[${i}]`) && test(field.slice(`words[${i}]`.length)) && e.key === key),
    );
  const wordsError = (key: string, language: Language) => {
    const at = sent.entries.findIndex((e) => e.key === key && e.language === language);
    if (at < 0) return undefined;
    const messages = Object.entries(f)
      .filter(([field]) => field === `words[${at}].words` || field.startsWith(`words[${at}].words[`))
      .map(([field, m]) => {
        const j = /\.words\[(\d+)\]/.exec(field)?.[1];
        return j === undefined ? m : `“${sent.entries[at].words[Number(j)]}” ${m}`;
      });
    return messages.join('; ') || undefined;
  };
  const nameError = (key: string) =>
    entryErrors(key, (rest) => rest === '' || rest === '.theme')
      .map(([, m]) => m)
      .join('; ') || undefined;
  const offError = (key: string) => {
    const i = sent.off.indexOf(key);
    return i < 0 ? undefined : f[`off[${i}]`];
  };
  const shown = Object.keys(f).filter((k) => /^(words\[\d+\]|off\[\d+\])/.test(k));
  const save = async () => {
    const next = inputOf(list);
    setSent(next);
    const answer = (await submit.run(() => request(SaveThemeSettings, { business, input: next.input })))?.updateThemeSettings;
    if (!answer) return;
    setList(draftsOf(answer));
    setUpdatedAt(answer.updatedAt);
    setSaved({ at: answer.updatedAt, reanalysing: answer.reanalysing });
  };
  return (
    <CardForm label="Theme settings" onSubmit={save}>
      <fieldset disabled={!canWrite || submit.busy} class="plain">
        <legend class="sr-only">Themes</legend>
        <p class="muted">
          One word or phrase per line, as guests write it: case does not matter. A theme switched off is never reported.{' '}
          {updatedAt == null ? 'Nothing changed yet: the built-in words alone.' : `Last changed ${formatDate(updatedAt)}.`}
        </p>
        {list.map((d) => {
          const count = LANGUAGES.reduce((n, l) => n + linesOf(d.words[l]).length, 0);
          const errors = !!(nameError(d.key) || offError(d.key) || LANGUAGES.some((l) => wordsError(d.key, l)));
          const title = d.builtIn ? d.name : d.name.trim() || 'A new theme';
          return (
            <details key={d.key} class="theme-card" open={!d.builtIn || count > 0 || errors || undefined} data-theme={d.name}>
              <summary>
                <strong>{title}</strong>{' '}
                <span class="muted">
                  {d.builtIn ? 'built in' : 'your own'} · {d.on ? 'read' : 'switched off'} · {plural(count, 'word')} of yours
                </span>
              </summary>
              {!d.builtIn && (
                <Field label="Theme name" error={nameError(d.key)} hint="2 to 30 lower-case letters, digits or hyphens: parking, kids-area.">
                  {(id, described) => (
                    <input
                      id={id}
                      ref={d.key === added ? newName : undefined}
                      aria-describedby={described}
                      aria-invalid={!!nameError(d.key)}
                      value={d.name}
                      onInput={(e) => change(d.key, { name: e.currentTarget.value })}
                    />
                  )}
                </Field>
              )}
              {d.builtIn && nameError(d.key) && <p class="field-error">{nameError(d.key)}</p>}
              <label class="check">
                <input type="checkbox" checked={d.on} aria-invalid={!!offError(d.key)} onChange={(e) => change(d.key, { on: e.currentTarget.checked })} /> Read
                comments for {title}
              </label>
              {offError(d.key) && <p class="field-error">{offError(d.key)}</p>}
              <div class="row">
                {LANGUAGES.map((l) => (
                  <Field key={l} label={`${title}: words in ${THEME_WORD_LANGUAGES[l]}`} error={wordsError(d.key, l)}>
                    {(id, described) => (
                      <textarea
                        id={id}
                        rows={3}
                        dir={l === 'ur' ? 'auto' : undefined}
                        aria-describedby={described}
                        aria-invalid={!!wordsError(d.key, l)}
                        value={d.words[l]}
                        onInput={(e) => change(d.key, { words: { ...d.words, [l]: e.currentTarget.value } })}
                      />
                    )}
                  </Field>
                ))}
              </div>
              {!d.builtIn && canWrite && (
                <button type="button" class="secondary" onClick={() => setList((old) => old.filter((x) => x.key !== d.key))}>
                  Remove {title}
                </button>
              )}
            </details>
          );
        })}
        {canWrite && (
          <p>
            <button
              type="button"
              class="secondary"
              onClick={() => {
                const key = `t${++drafts}`;
                setList((old) => [...old, { key, name: '', builtIn: false, on: true, words: noWords() }]);
                setAdded(key);
              }}
            >
              Add a theme of your own
            </button>
          </p>
        )}
        <FormError error={submit.error} shown={shown} />
        {canWrite && <SaveButton busy={submit.busy} label="Save theme settings" />}
        <p role="status" class="ok">
          {saved
            ? `Saved: new comments are read with these words from now on${saved.reanalysing ? `, and ${plural(saved.reanalysing, 'response')} of the last 30 days ${saved.reanalysing === 1 ? 'is' : 'are'} being read again` : ''}.`
            : ''}
        </p>
      </fieldset>
    </CardForm>
  );
}
