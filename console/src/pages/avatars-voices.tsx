export function AvatarsVoicesPage() {
  return <h1>AvatarsVoicesPage</h1>;
}
