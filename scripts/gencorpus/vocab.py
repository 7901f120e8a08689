"""Vocabulary: the words, names and crawler tokens that domains, paths,
web copy and robots.txt bodies are made of, with where the lists come
from."""

SYLLABLES = ("ba be bi bo bu ca co da de di do fa fe fi fo ga go ha he hi ka ke ki ko "
             "la le li lo lu ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so "
             "ta te ti to va ve vi vo za zo an en in on ar er or ul el il ex ix st tr pr "
             "br gr cl fl pl sh ch th").split()
TLD_SHARES = {"com": 44, "org": 5, "net": 5, "de": 7, "ru": 4, "co.uk": 3, "fr": 2, "jp": 2,
              "com.br": 2, "it": 2, "pl": 2, "nl": 2, "es": 1.5, "in": 1, "com.au": 1, "io": 1.5,
              "info": 1, "xyz": 1, "cn": 1.5, "ca": 1, "ch": 1, "se": 1, "cz": 1, "edu": 1,
              "gov": 0.5, "shop": 0.5, "blog": 0.5}
SUBDOMAINS = ["shop", "blog", "m", "news", "en", "de", "forum", "docs", "store", "support",
              "portal", "wiki", "jobs", "app", "static", "help"]
# Unicode labels for IDN hosts (written here; encoded to punycode with the
# idna codec).
IDN_NAMES = [("bücherei", "de"), ("müller-bäckerei", "de"), ("café-olé", "fr"),
             ("niño", "es"), ("магазин", "рф"), ("пример", "рф"), ("日本語", "jp"),
             ("ελλάδα", "gr"), ("zürich-reisen", "ch"), ("köln-kultur", "de")]

PATH_WORDS = ("account admin ajax api archive assets auth basket blog cache cart catalog "
              "category checkout cgi-bin client comments config content cron dashboard data "
              "debug dev download drafts embed events export feed files forum gallery help "
              "images import includes internal invoices jobs json lib login logout media "
              "members mobile modules newsletter old orders pages partners preview print "
              "private profile promo public redirect register reports rss search secure "
              "session share shop signup static stats storage tag temp test themes tmp "
              "tracking upload uploads user users vendor video wishlist node product "
              "products collections compare filter sort lang en de fr staging beta").split()
QUERY_KEYS = ["sort", "filter", "sessionid", "sid", "page", "ref", "utm_source", "q", "lang",
              "replytocom", "add-to-cart", "orderby", "price", "view", "format"]
FILE_EXTS = ["pdf", "php", "json", "xml", "zip", "doc", "xls", "cgi", "asp", "js", "css", "gif"]

# Words of web copy, ordered roughly by how common they are (Zipf weights
# below make gzip behave roughly as on real pages).
PROSE = ("the and to of a in for is on you your with our we this that are it be at "
         "from by all more new or as can have not will about us an free shop now get "
         "page site home contact service products online best help find more here "
         "order price delivery support account search privacy policy terms cookie "
         "information news blog read world day time year people business design "
         "quality customer shipping return sale offer today latest story article "
         "video photo team company product store world market local guide review "
         "learn work life health travel food music book event community member "
         "details please view list back top menu close open login register cart "
         "checkout wishlist compare share follow subscribe newsletter email phone "
         "address city country language english deutsch français español help "
         "faq career jobs partner press investor report annual energy water green "
         "city summer winter spring autumn holiday gift card discount code "
         "collection new arrivals men women kids home garden sports outdoor").split()

# Search, SEO and other non-AI crawlers that robots.txt files name.
SEARCH_BOTS = ["Googlebot", "Googlebot-Image", "Googlebot-News", "Bingbot", "msnbot", "Slurp",
               "DuckDuckBot", "Baiduspider", "YandexBot", "Yandex", "Applebot", "SeznamBot",
               "Sogou web spider", "Yeti", "Qwantify", "PetalBot", "MojeekBot", "Mediapartners-Google",
               "AdsBot-Google", "AdsBot-Google-Mobile", "facebookexternalhit", "Twitterbot",
               "LinkedInBot", "Pinterest", "ia_archiver", "archive.org_bot", "Nutch"]
SEO_BOTS = ["AhrefsBot", "AhrefsSiteAudit", "SemrushBot", "SemrushBot-SA", "MJ12bot", "DotBot",
            "BLEXBot", "rogerbot", "DataForSeoBot", "serpstatbot", "Screaming Frog SEO Spider",
            "SiteAuditBot", "MegaIndex.ru", "linkdexbot", "spbot"]

# AI crawler tokens the published studies track (crates/robostats-rows/data/agents.tsv and its
# README: the ai-robots-txt/ai.robots.txt list, MIT, and the studies' lists).
AI_CORE = ["GPTBot", "ChatGPT-User", "OAI-SearchBot", "CCBot", "Google-Extended", "GoogleOther",
           "Applebot-Extended", "anthropic-ai", "ClaudeBot", "Claude-Web", "Claude-User",
           "Claude-SearchBot", "PerplexityBot", "Perplexity-User", "Bytespider",
           "meta-externalagent", "meta-externalfetcher", "FacebookBot", "Amazonbot", "cohere-ai",
           "cohere-training-data-crawler", "Diffbot", "omgili", "Webzio-Extended", "Timpibot",
           "YouBot", "AI2Bot", "Kangaroo Bot", "DeepSeekBot", "MistralAI-User"]
# More names from ai-robots-txt/ai.robots.txt robots.json (MIT, commit
# 738c80df); some are not RFC 9309 tokens (spaces, digits, "/"), as in real
# files.
AI_MORE = ["Ai2Bot-Dolma", "omgilibot", "ImagesiftBot", "img2dataset", "PanguBot", "Scrapy",
           "TikTokSpider", "DuckAssistBot", "iaskspider/2.0", "ICC-Crawler",
           "VelenPublicWebCrawler", "Meta-ExternalAgent", "MistralAI-User/1.0", "ChatGPT Agent",
           "Brightbot 1.0", "FirecrawlAgent", "Crawl4AI", "TavilyBot", "YandexAdditional",
           "NovaAct", "Google-CloudVertexBot", "GoogleAgent-Mariner", "Gemini-Deep-Research",
           "Kimi-User", "Manus-User", "QualifiedBot"]
# The groups of Cloudflare's managed robots.txt block (Cloudflare's
# documentation, managed-robots-txt; CloudflareBrowserRenderingCrawler since 2026).
CLOUDFLARE_BLOCKED = ["Amazonbot", "Applebot-Extended", "Bytespider", "CCBot", "ClaudeBot",
                      "Google-Extended", "GPTBot", "meta-externalagent"]

# Google's accepted misspellings (google/robotstxt robots.cc, as listed in
# tests/python/warc_facts.py) and misspellings nobody accepts.
ACCEPTED_TYPOS = {
    "user-agent": ["useragent", "User agent", "Useragent", "user agent"],
    "disallow": ["Dissallow", "dissalow", "Disalow", "diasllow", "Disallaw"],
    "sitemap": ["Site-map", "site-map"],
}
UNACCEPTED_TYPOS = {
    "user-agent": ["User-agnet", "user-agnet", "Usr-agent"],
    "disallow": ["Diallow", "Dis-allow", "Dsallow", "Disllow"],
    "allow": ["Alow", "Allwo"],
    "sitemap": ["Sitmap", "Site map", "Stemap"],
    "crawl-delay": ["crawl_delay", "Crawl-Dealy", "Crawldelay"],
}
