/* The migrate command (see migrate.c). */
#ifndef CGFB_SERVER_MIGRATE_H
#define CGFB_SERVER_MIGRATE_H

/* argv[0] is "migrate". Returns the exit status: 0 every report of the
 * source is in the destination, verified; 1 some are not (each named on
 * stderr); 2 trouble (a database could not be opened or read). */
int server_migrate(int argc, char **argv);

#endif
