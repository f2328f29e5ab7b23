import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDay, zoneName } from '../ui';

export interface Series {
  label: string;
  values: (number | null)[];
}

/** Distinct on white and for the common colour blindnesses (Okabe–Ito). */
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];
const HEIGHT = 220;

/**
 * One chart of values over the range's buckets, drawn by uPlot (canvas, 50 KB, maintained). The canvas is hidden
 * from screen readers: the same numbers are in a table beside it, and the legend is ours (plain text and a swatch).
 */
export default function LineChart(props: {
  title: string;
  /** The start of each bucket (ms) that has a value. */
  periods: number[];
  /** The whole range charted (ms), so a range with one busy day still reads as a range. */
  from: number;
  to: number;
  interval: string;
  series: Series[];
  format: (v: number) => string;
  /** A fixed value axis (NPS −100 to 100, a rate 0 to 100); else fitted to the values. */
  yRange?: [number, number];
  empty: string;
}) {
  const { title, periods, from, to, interval, series, format, yRange } = props;
  const hasValues = series.some((s) => s.values.some((v) => v != null));
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: Math.max(200, element.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), zoneName()),
      scales: { x: { time: true, range: [from / 1000, to / 1000] }, ...(yRange ? { y: { range: yRange } } : {}) },
      axes: [{}, { values: (_, ticks) => ticks.map((t) => format(t)), size: 56 }],
      series: [
        {},
        ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, spanGaps: true, points: { show: periods.length <= 31 } })),
      ],
    };
    const plot = new uPlot(options, [periods.map((p) => p / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData, element);
    element.dataset.drawn = 'true';
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [periods, series, from, to]);
  const id = `chart-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure class="card chart" aria-labelledby={id}>
      <figcaption id={id}>
        <strong>{title}</strong> <span class="muted">per {interval === 'day' ? 'day' : interval === 'week' ? 'week' : 'month'}</span>
      </figcaption>
      <ul class="legend">
        {series.map((s, i) => (
          <li key={s.label}>
            <span class="swatch" data-colour={i % COLOURS.length} aria-hidden="true" />
            {s.label}
          </li>
        ))}
      </ul>
      {hasValues ? (
        <div ref={box} class="plot" aria-hidden="true" data-testid={id} />
      ) : (
        <p class="muted plot-empty" data-testid={id} data-drawn="true">
          {props.empty}
        </p>
      )}
      {hasValues && (
        <details>
          <summary>The numbers</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">{interval === 'day' ? 'Day' : `${interval[0].toUpperCase()}${interval.slice(1)} from`}</th>
                {series.map((s) => (
                  <th key={s.label} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {periods.map((p, row) => (
                <tr key={p}>
                  <td>{formatDay(p)}</td>
                  {series.map((s) => (
                    <td key={s.label}>{s.values[row] == null ? '—' : format(s.values[row]!)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}
