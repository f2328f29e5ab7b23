import { Empty } from './ui';
import { ThemeChips, themesOf, type AnalysisShape } from './themes';

/** A survey step as the answer lists read it: its title, type, metrics (with their scales) and dish scale. */
interface StepShape {
  id: string;
  position: number;
  type: string;
  content: unknown;
  metrics?: { metrics: { id: string; name?: string; scale?: { min: number; max: number } }[] } | null;
}
interface AnswerShape {
  step: string;
  value?: unknown;
  ratings?: Record<string, unknown> | null;
  items?: Record<string, unknown> | null;
}
/** An order line, for the name of the dish an answer rated (answers name dishes by their menu item). */
interface DishShape {
  menuItem?: { id: string; name: string } | null;
}

const thumbs = (step: { content: unknown } | undefined) => (step?.content as { scale?: unknown } | undefined)?.scale === 'thumbs';
/** A dish's rating as a spreadsheet cell holds it: a thumb on a thumbs step (stored as 5 or 1), else its number (of 5). */
export const dishRatingCell = (step: { content: unknown } | undefined, rating: unknown) =>
  thumbs(step) ? (rating === 5 ? 'thumbs up' : 'thumbs down') : String(rating);
/** A dish's rating as the guest gave it: a thumb, else its number of 5. */
const dishRating = (step: { content: unknown } | undefined, rating: unknown) => (thumbs(step) ? dishRatingCell(step, rating) : `${String(rating)} of 5`);

/** An answer as one cell of a list: a metrics or dishes step's ratings in order, else its value. */
export const answerText = (a: Omit<AnswerShape, 'step'>) => {
  const ratings = a.ratings ?? a.items;
  return ratings ? Object.values(ratings).join(' / ') : Array.isArray(a.value) ? a.value.join(', ') : a.value == null ? '' : String(a.value);
};

/** A step's title as its content holds it ('' when it has none): the editor, the answer lists and the CSV alike. */
export const stepTitle = (step: { content: unknown }) => {
  const title = (step.content as { title?: unknown } | null)?.title;
  return typeof title === 'string' ? title : '';
};

const titleOf = (step: StepShape | undefined, fallback: string) => (step ? stepTitle(step) || step.type : fallback);

/**
 * What a guest answered, each answer beside its question in the survey's order: ratings with their metric's name and
 * scale, dishes with their names (from the order's lines), NPS of 10, choices and text as given, a text with the themes
 * the workers read in it (`analysis`). The case page and the feedback page show the same.
 */
export function AnswerList({
  steps,
  answers,
  dishes = [],
  analysis,
}: {
  steps: readonly StepShape[];
  answers: readonly AnswerShape[];
  dishes?: readonly DishShape[];
  analysis?: readonly AnalysisShape[];
}) {
  const ordered = [...steps].sort((a, b) => a.position - b.position);
  const position = new Map(ordered.map((s, i) => [s.id, i]));
  const sorted = [...answers].sort((a, b) => (position.get(a.step) ?? 999) - (position.get(b.step) ?? 999));
  if (!sorted.length) return <Empty>No answer yet (the guest stopped before the first step).</Empty>;
  const dishName = (id: string) => dishes.find((d) => d.menuItem?.id === id)?.menuItem?.name ?? 'A dish no longer on the order';
  return (
    <dl class="answers">
      {sorted.map((a) => {
        const step = ordered.find((s) => s.id === a.step);
        return (
          <div key={a.step}>
            <dt>{titleOf(step, 'Answer')}</dt>
            <dd>
              {a.ratings
                ? Object.entries(a.ratings).map(([metric, rating]) => {
                    const m = step?.metrics?.metrics.find((x) => x.id === metric);
                    return (
                      <span key={metric} class="rating">
                        {m?.name ?? 'Rating'}: {String(rating)}
                        {m?.scale ? ` of ${m.scale.max}` : ''}
                      </span>
                    );
                  })
                : a.items
                  ? Object.entries(a.items).map(([dish, rating]) => (
                      <span key={dish} class="rating">
                        {dishName(dish)}: {dishRating(step, rating)}
                      </span>
                    ))
                  : step?.type === 'nps'
                    ? `${String(a.value)} of 10`
                    : answerText(a) || '—'}
              <ThemeChips themes={themesOf(analysis, a.step)} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
