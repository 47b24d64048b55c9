/** Running a test's threads so that they race: started together, their failures collected. */
package io.rdmakv.testsupport.concurrent;
