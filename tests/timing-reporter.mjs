// A node --test reporter that writes one JSON line per finished test or file:
// {file, name, ms, ok}. scripts/test.sh reads it for the slowest tests in its closing table.
export default async function* timingReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, file, details } = event.data;
    if (details?.type === 'suite' || nesting > 0 && !file) continue;
    yield `${JSON.stringify({ file, name, nesting, ms: Math.round(details?.duration_ms ?? 0), ok: event.type === 'test:pass' })}\n`;
  }
}
