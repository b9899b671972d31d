export function AssetsPage() {
  return <h1>AssetsPage</h1>;
}
