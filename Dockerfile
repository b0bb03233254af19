# memoria's container image: the Node entry on bundled JavaScript, as a non-root user.
#
# Two stages: Node 20 cannot run TypeScript itself, so the first stage bundles src/ into dist/ (scripts/build.mjs,
# esbuild: a runtime dependency, so no dev dependency is installed); the second installs the runtime
# dependencies and copies dist/ in, without src/. Storage defaults to a file under /data (a volume); for more
# than one instance, point MEMORIA_DB_URL at Turso or sqld.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are not needed to build, nor to run: libSQL's native build is a prebuilt optional package, and
# the indexes' engine (@photostructure/sqlite) carries its prebuilt addons in its own package.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM node:20-slim
# MEMORIA_HOST: every interface, as a server in a container must be to be reached through a published port
# (memoria's own default is loopback).
# MALLOC_MMAP_THRESHOLD_: glibc's malloc gives every block of 128 KiB and more its own mapping, returned to the
# system when freed, instead of raising that bound as large blocks are freed and keeping them in its heaps
# (docs/decisions/0066-malloc-mmap-threshold.md); `npm start` sets the same. Without it, RSS a byte of text
# 1.45–1.66× (docs/decisions/0111-tuning-kept-where-it-pays.md).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MEMORIA_HOST=0.0.0.0 \
    PORT=8080 \
    MEMORIA_DB_URL=file:/data/memoria.db
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force \
    && mkdir -p /data && chown node:node /data
COPY --from=build /app/dist ./dist
USER node
VOLUME /data
EXPOSE 8080
# node:20-slim has no curl; Node's own fetch asks /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, `node` itself as PID 1's command: SIGTERM reaches memoria, which drains and exits 0.
# --max-semi-space-size=2: the main isolate's young generation held at 2 MiB semispaces, as `npm start` holds it
# (docs/decisions/0074-main-young-generation.md); it bounds the search threads' isolates too. Without it, RSS a
# byte of text 1.75–2.35× (docs/decisions/0111-tuning-kept-where-it-pays.md).
CMD ["node", "--max-semi-space-size=2", "dist/runtime/node.js"]
