// A Worker that serves the gateway's GrantStore Durable Object class (copied
// beside it as grants.mjs) directly: each request goes to the object its
// path names, as the gateway's entry module routes them. The end-to-end
// tests check the object against package grants' contract through it.
export { GrantStore } from "./grants.mjs";

export default {
  fetch(request, env) {
    const name = decodeURIComponent(new URL(request.url).pathname.slice(1));
    return env.GRANTS.get(env.GRANTS.idFromName(name)).fetch(request);
  },
};
