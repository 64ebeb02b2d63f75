"""The report, a consumer of every analysis: report.json (``build``), report.html (``sections``, ``html``,
``templates/``), interactive and PNG figures (``plots``, ``layout_render``), number formatting, and the platform
preset the sections run on (``preset``)."""
