"""The plan of a file's fetches: what each slot fetches (a fresh robots.txt
URL, a spec that --small or --preferences forces, the target of an earlier
redirect, or a re-fetch of a recent URL) and when redirect targets are
fetched."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from .config import (FOLLOW_DELAY_MEAN, FOLLOW_PAGE_STATUS, FOLLOW_ROBOTS_STATUS, REDIRECT_KIND_SHARES,
                     REDIRECT_STATUSES, REFETCH, STATUS_SHARES)
from .hosts import Site, new_site, redirect_kinds_for, site_for_redirect
from .util import pick


@dataclass
class Fetch:
    """One fetch: the URL (site and path), the status the server will
    answer, why it is fetched, and what its spec forces (if any)."""
    site: Site
    path: str = "/robots.txt"
    status: int = 200
    origin: str = "fresh"                  # fresh | follow_up | refetch
    redirect_kind: str | None = None
    force: dict = field(default_factory=dict)


class Plan:
    """Hands out the fetch of each slot of a file of `n` fetches. `forced`
    are specs (dicts of what a fetch must have), taken in turn from the
    slots of `forced_at` on; `facts` counts the redirect targets followed."""

    def __init__(self, rng, n, facts, forced, forced_at):
        self.rng = rng
        self.n = n
        self.facts = facts
        self.forced = forced
        self.forced_at = forced_at
        self.later = []          # heap of (slot, seq, Fetch): redirect targets to fetch later
        self.seq = 0
        self.recent = []         # robots.txt sites fetched, for re-fetches

    def next_fetch(self, slot):
        """A redirect target due by `slot`, else a fresh fetch (forced by
        the next spec if its slot has come) or a re-fetch."""
        rng = self.rng
        if self.later and self.later[0][0] <= slot:
            return heapq.heappop(self.later)[2]
        force = {}
        if self.forced and slot >= self.forced_at[0]:
            self.forced_at.pop(0)
            force = self.forced.pop(0)
        if force.get("refetch") or (not force and self.recent and rng.random() < REFETCH):
            return self.refetch(force)
        return self.fresh(force)

    def refetch(self, force):
        """Another fetch of a recent robots.txt URL."""
        rng = self.rng
        site = rng.choice(self.recent[-500:]) if self.recent else new_site(rng)
        status = force.get("status") or pick(rng, STATUS_SHARES)
        kind = None
        if 300 <= status < 400:
            kind = rng.choice(redirect_kinds_for(site))
        return Fetch(site, status=status, origin="refetch", redirect_kind=kind, force=force)

    def fresh(self, force):
        """The robots.txt URL of a new site, fit for the redirect if the
        status is one."""
        rng = self.rng
        status = force.get("status") or pick(rng, STATUS_SHARES)
        kind = None
        if force.get("redirect_kind") and not 300 <= status < 400:
            status = pick(rng, REDIRECT_STATUSES)
        if 300 <= status < 400:
            kind = force.get("redirect_kind") or pick(rng, REDIRECT_KIND_SHARES)
            site = site_for_redirect(rng, kind, force)
        else:
            site = new_site(rng, kind=force.get("host_kind"), scheme=force.get("scheme"),
                            port=force.get("port"))
        self.recent.append(site)
        return Fetch(site, status=status, redirect_kind=kind, force=force)

    def schedule(self, slot, fetch):
        """Fetch `fetch` a few slots later (dropped past the file's end)."""
        delay = 1 + int(self.rng.expovariate(1.0 / FOLLOW_DELAY_MEAN))
        if slot + delay < self.n:
            self.seq += 1
            heapq.heappush(self.later, (slot + delay, self.seq, fetch))

    def follow_later(self, slot, target, path, chain):
        """Schedule the fetch of a redirect's target, with the status its
        server will answer (a chain: a redirect again, followed too)."""
        rng = self.rng
        if path == "/robots.txt":
            status = 301 if chain else pick(rng, FOLLOW_ROBOTS_STATUS)
        else:
            status = pick(rng, FOLLOW_PAGE_STATUS)
        kind, force = None, {}
        if 300 <= status < 400:
            kinds = [k for k in redirect_kinds_for(target)
                     if k not in ("missing_location", "not_robots_path", "https_downgrade")]
            kind = rng.choice(kinds)
            force = {"follow": True} if chain else {}
        self.facts["follow_up"]["robots" if path == "/robots.txt" else "other_path"] += 1
        self.schedule(slot, Fetch(target, path=path, status=status, origin="follow_up",
                                  redirect_kind=kind, force=force))
