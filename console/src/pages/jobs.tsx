export function JobsPage(_props: { section?: string; videoId?: string }) {
  return <h1>JobsPage</h1>;
}
