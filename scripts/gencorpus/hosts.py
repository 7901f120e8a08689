"""Sites and their URLs: the Site (scheme, host, port, peer IP), random
domains, hosts and IP addresses, and the sites a redirect can start from or
lead to."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from .config import EXPLICIT_PORT, HOST_KIND_SHARES, HTTPS, IPV6_PEER, NON_ROBOTS_PATHS
from .util import DOMAIN_WORDS, pick
from .vocab import IDN_NAMES, SUBDOMAINS, SYLLABLES, TLD_SHARES


@dataclass
class Site:
    scheme: str
    host: str            # as written in the URL (may be upper-case, punycode, an IPv4)
    domain: str          # registered domain, lower-case ASCII
    kind: str            # www | bare | sub | idn | ipv4 | upper
    port: int | None = None
    ip: str = "0.0.0.0"

    @property
    def hostport(self):
        return self.host if self.port is None else "%s:%d" % (self.host, self.port)

    @property
    def origin(self):
        return "%s://%s" % (self.scheme, self.hostport)

    def url(self, path):
        return self.origin + path

    def moved(self, **changes):
        d = dict(self.__dict__)
        d.update(changes)
        return Site(**d)


def new_domain(rng):
    r = rng.random()
    if r < 0.5:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
    elif r < 0.85:
        name = "-".join(rng.choice(DOMAIN_WORDS) for _ in range(rng.randint(1, 2)))
    else:
        name = rng.choice(SYLLABLES) + rng.choice(DOMAIN_WORDS) + str(rng.randint(1, 99))
    return name + "." + pick(rng, TLD_SHARES)


def public_ipv4(rng):
    while True:
        a = rng.randint(1, 223)
        if a not in (10, 100, 127, 169, 172, 192, 198, 203):
            return "%d.%d.%d.%d" % (a, rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254))


IPV6_PREFIXES = [0x26064700, 0x2A0104F8, 0x26001F18, 0x2A0226F0, 0x2604A880, 0x20014860]


def public_ipv6(rng):
    value = (rng.choice(IPV6_PREFIXES) << 96) | (rng.getrandbits(16) << 64)
    if rng.random() < 0.5:
        value |= rng.getrandbits(16)          # ::1234-style, compressed by RFC 5952
    else:
        value |= rng.getrandbits(64)
    return str(ipaddress.IPv6Address(value))


def new_site(rng, kind=None, scheme=None, port=None):
    kind = kind or pick(rng, HOST_KIND_SHARES)
    if scheme is None:
        scheme = "https" if rng.random() < (0.2 if kind == "ipv4" else HTTPS) else "http"
    if kind == "ipv4":
        ip = public_ipv4(rng)
        return Site(scheme, ip, ip, kind, port, ip)
    if kind == "idn":
        label, tld = rng.choice(IDN_NAMES)
        domain = ("%s.%s" % (label, tld)).encode("idna").decode("ascii")
        host = domain if rng.random() < 0.6 else "www." + domain
    else:
        domain = new_domain(rng)
        if kind == "www":
            host = "www." + domain
        elif kind == "sub":
            host = rng.choice(SUBDOMAINS) + "." + domain
        else:
            host = domain
        if kind == "upper":
            host = ("www." + domain if rng.random() < 0.5 else domain).upper()
            if rng.random() < 0.5:     # mixed case: "WWW.Example.COM"
                host = ".".join(p.capitalize() if i % 2 else p for i, p in enumerate(host.split(".")))
    if port is None and rng.random() < EXPLICIT_PORT:
        port = rng.choice((8080, 8443, 8000, 81, 8888))
    ip = public_ipv6(rng) if rng.random() < IPV6_PEER else public_ipv4(rng)
    return Site(scheme, host, domain, kind, port, ip)


def site_for_redirect(rng, kind, force):
    """A fresh site whose URL can make the redirect `kind`."""
    scheme = force.get("scheme")
    if kind == "https_upgrade":
        return new_site(rng, kind=force.get("host_kind"), scheme="http")
    if kind == "https_downgrade":
        return new_site(rng, kind=force.get("host_kind") or rng.choice(("www", "bare")), scheme="https")
    if kind == "www_added":
        return new_site(rng, kind="bare", scheme=scheme)
    if kind == "www_removed":
        return new_site(rng, kind="www", scheme=scheme)
    if kind == "same_site":
        return new_site(rng, kind="sub", scheme=scheme)
    return new_site(rng, kind=force.get("host_kind"), scheme=scheme)


def redirect_kinds_for(site):
    """The redirect kinds a response for this site's URL can make."""
    kinds = ["other_host", "not_robots_path", "missing_location"]
    host = site.host.lower()
    if site.scheme == "http":
        kinds.append("https_upgrade")
    else:
        kinds.append("https_downgrade")
    if site.kind == "ipv4":
        return kinds
    if host.startswith("www."):
        kinds.append("www_removed")
    elif host == site.domain:
        kinds.append("www_added")
    else:
        kinds.append("same_site")
    return kinds


def redirect_target(rng, site, kind, force):
    """Where a redirect of `kind` from `site`'s robots.txt leads: (site,
    path). "not_robots_path" and "missing_location" keep the site and take
    another path."""
    target_path = "/robots.txt"
    if kind == "https_upgrade":
        target = site.moved(scheme="https", port=None)
    elif kind == "https_downgrade":
        target = site.moved(scheme="http", port=None)
    elif kind == "www_added":
        target = site.moved(host="www." + site.host, kind="www",
                            scheme="https" if rng.random() < 0.5 else site.scheme)
    elif kind == "www_removed":
        target = site.moved(host=site.host[4:], kind="bare",
                            scheme="https" if rng.random() < 0.5 else site.scheme)
    elif kind == "same_site":
        target = site.moved(host="www." + site.domain, kind="www", scheme="https")
    elif kind == "other_host":
        target = new_site(rng, kind=rng.choice(("www", "bare")), scheme="https")
    else:
        target = site
        target_path = force.get("target_path") or rng.choice(NON_ROBOTS_PATHS)
    return target, target_path
