/** The video the render benchmarks make: three scenes of a quarterly update. */

/** About 60 s of speech at eSpeak's normal rate, one paragraph per scene. */
export const SCENE_SCRIPTS = [
  `Welcome to the quarterly update. This quarter, our team shipped three major features and fixed over two
   hundred bugs. Customers told us that onboarding felt slow, so we rebuilt it from scratch. The new flow
   takes less than two minutes, and early numbers show a large increase in completed sign ups.`,
  `Next, let's talk about reliability. We moved our databases to a new cluster, added automated failover,
   and cut the average response time in half. We also started publishing a public status page, so you
   always know what is going on. Support tickets about outages dropped by a third, and the on-call team
   finally sleeps through the night.`,
  `Looking ahead, we will focus on three things: performance, accessibility, and better tools for teams.
   Expect faster page loads, full keyboard navigation, and shared workspaces with roles and permissions.
   We would love to hear what matters most to you, so please send us your ideas. Thank you for watching,
   and see you next quarter.`,
].map((text) => text.replace(/\s+/g, ' ').trim());

/** A background colour per scene. */
export const SCENE_COLORS = ['#1d3557', '#2a4d3e', '#3d2c5c'];
