// The soak's slow disk: preloaded into the server (LD_PRELOAD), it makes every fsync and
// fdatasync on the thread named SLOW_FSYNC_THREAD (the autosave's) wait while the file named by
// SLOW_FSYNC_FLAG exists, for the milliseconds written in it, after touching "<flag>.entered"
// so the harness knows the autosave is under way.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static void stall(void) {
  const char *flag = getenv("SLOW_FSYNC_FLAG");
  const char *thread = getenv("SLOW_FSYNC_THREAD");
  if (!flag) return;
  if (thread) {
    char name[17] = { 0 };
    prctl(PR_GET_NAME, name, 0, 0, 0);
    if (strcmp(name, thread) != 0) return;
  }
  FILE *f = fopen(flag, "r");
  if (!f) return;
  long ms = 0;
  if (fscanf(f, "%ld", &ms) != 1) ms = 0;
  fclose(f);
  char entered[4096];
  snprintf(entered, sizeof entered, "%s.entered", flag);
  FILE *e = fopen(entered, "w");
  if (e) fclose(e);
  struct timespec wait = { ms / 1000, (ms % 1000) * 1000000L };
  nanosleep(&wait, NULL);
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  stall();
  return real(fd);
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  stall();
  return real(fd);
}
