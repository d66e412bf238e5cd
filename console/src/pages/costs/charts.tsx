import {
  ArcElement,
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  DoughnutController,
  Legend,
  LinearScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { formatUsd } from '../../format';

// Only the pieces these two charts use, so the rest of Chart.js stays out of the bundle.
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  DoughnutController,
  ArcElement,
  Tooltip,
  Legend,
);

/**
 * A Chart.js canvas. The canvas is an image to assistive technology (role="img" with a label saying what
 * it shows); the numbers themselves are in a table beside every chart.
 */
function ChartCanvas({
  config,
  label,
  className,
}: {
  config: ChartConfiguration;
  label: string;
  className: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | undefined>(undefined);
  useEffect(() => {
    if (!canvas.current) return;
    chart.current?.destroy();
    chart.current = new Chart(canvas.current, config);
  }, [config]);
  useEffect(() => () => chart.current?.destroy(), []);
  return (
    <div class={`chart-box ${className}`}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

export function StackedCostChart({
  labels,
  series,
  label,
}: {
  labels: string[];
  series: { model: string; values: number[]; colour: string }[];
  label: string;
}) {
  const config = useMemo(
    (): ChartConfiguration<'bar'> => ({
      type: 'bar',
      data: {
        labels,
        datasets: series.map((s) => ({
          label: s.model,
          data: s.values,
          backgroundColor: s.colour,
          borderWidth: 0,
        })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        responsive: true,
        scales: {
          x: { stacked: true },
          y: {
            stacked: true,
            beginAtZero: true,
            ticks: { callback: (value) => formatUsd(Number(value)) },
          },
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              label: (item) => `${item.dataset.label ?? ''}: ${formatUsd(Number(item.raw))}`,
            },
          },
        },
      },
    }),
    [labels, series],
  );
  return <ChartCanvas config={config} label={label} className="chart-wide" />;
}

export function ModelShareChart({
  slices,
  label,
}: {
  slices: { model: string; costUsd: number; colour: string }[];
  label: string;
}) {
  const config = useMemo(
    (): ChartConfiguration<'doughnut'> => ({
      type: 'doughnut',
      data: {
        labels: slices.map((s) => s.model),
        datasets: [
          {
            data: slices.map((s) => s.costUsd),
            backgroundColor: slices.map((s) => s.colour),
            borderColor: '#ffffff',
          },
        ],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        responsive: true,
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              label: (item) => `${item.label}: ${formatUsd(Number(item.raw))}`,
            },
          },
        },
      },
    }),
    [slices],
  );
  return <ChartCanvas config={config} label={label} className="chart-square" />;
}
