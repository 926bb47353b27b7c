"""Understanding an intent: what the words of a question about files mean, with no model.

``words`` splits an intent into words and says what each looks like,
``phrases`` claims the phrases that carry meaning, ``intent`` judges the
whole (``parse``: what is asked, of what, with which filters, or what was
not understood), and ``compose`` turns an understood intent into programs,
one per set of tools that can answer it. ``nearest`` finds, for a refused
question, the questions it does understand that are nearest it. ``terms``
reduces words so that an intent can be compared with a tool's name and
description. The core of ``lackpy.infer`` uses this wing (the rules tier,
the templates' patterns, the prompt); the wing imports nothing else of
``lackpy.infer``, so it can be read and tested on its own.
"""
