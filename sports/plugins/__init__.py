"""Sport plugins: each turns a sport's commands into log items and folds the log into a
scoreboard, competitor results and stat lines. A new sport is a definition row naming a
plugin (``settings.SPORT_PLUGINS``), not new tables."""
