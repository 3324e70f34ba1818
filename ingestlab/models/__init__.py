"""Cost models fitted to what a race measured and to what an article published: a linear cost per request and per
document (:mod:`.linear`), Gunther's Universal Scalability Law for clients and nodes (:mod:`.usl`), and the
recommendations a sweep draws from them (:mod:`.recommend`)."""
